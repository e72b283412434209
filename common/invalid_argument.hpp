#pragma once
// The error every user-facing check raises: it names the field at fault, so a CLI can say which.

#include <stdexcept>
#include <string>

namespace ddl {

class InvalidArgument : public std::invalid_argument {
 public:
  InvalidArgument(std::string field, const std::string& message)
      : std::invalid_argument(field + ": " + message), field_(std::move(field)), message_(message) {}
  const std::string& field() const { return field_; }
  // What is wrong, without the field: for rethrowing under another field's name.
  const std::string& message() const { return message_; }

 private:
  std::string field_;
  std::string message_;
};

}  // namespace ddl
