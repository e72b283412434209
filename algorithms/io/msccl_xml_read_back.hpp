#pragma once
// What `ddlsim schedule --msccl-xml` writes through: a stream that passes everything to `out` and reads the
// same bytes, as they go, into the check of msccl_xml_check.hpp. A 1024-GPU ring's export is 500 MB: held
// whole, it would cost more than its check (and on some machines seconds of fresh memory).

#include <memory>
#include <optional>
#include <ostream>
#include <string>

namespace ddl {

class MscclXmlReadBack : public std::ostream {
 public:
  explicit MscclXmlReadBack(std::ostream& out);
  ~MscclXmlReadBack() override;
  // Once the whole document is written: what mscclXmlFault says of it.
  std::optional<std::string> fault();

 private:
  class Buffer;
  std::unique_ptr<Buffer> buffer_;
};

}  // namespace ddl
