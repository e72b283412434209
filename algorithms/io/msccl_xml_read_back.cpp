#include "algorithms/io/msccl_xml_read_back.hpp"

#include <array>
#include <streambuf>

#include "algorithms/io/msccl_xml_check.hpp"
#include "algorithms/io/msccl_xml_reader.hpp"

namespace ddl {

// A put area the writer fills; each time it is full the bytes go to `out` and into the reader.
class MscclXmlReadBack::Buffer : public std::streambuf {
 public:
  explicit Buffer(std::ostream& out) : out_(out) { setp(bytes_.data(), bytes_.data() + bytes_.size()); }

  std::optional<std::string> fault() {
    pass();
    try {
      if (!fault_ && !checked_) checkMscclDocument(reader_.finish());
    } catch (const MscclXmlFault& fault) {
      fault_ = fault.what();
    }
    checked_ = true;  // the reader has handed its document over
    return fault_;
  }

 protected:
  int overflow(int c) override {
    pass();
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
    return c;
  }
  int sync() override {
    pass();
    return out_.flush() ? 0 : -1;
  }

 private:
  void pass() {
    const std::string_view piece(pbase(), static_cast<std::size_t>(pptr() - pbase()));
    out_.write(piece.data(), static_cast<std::streamsize>(piece.size()));
    try {
      if (!fault_) reader_.read(piece);  // after the first fault, the rest is only passed on
    } catch (const MscclXmlFault& fault) {
      fault_ = fault.what();
    }
    setp(bytes_.data(), bytes_.data() + bytes_.size());
  }

  std::ostream& out_;
  MscclXmlReader reader_;
  std::optional<std::string> fault_;
  bool checked_ = false;
  std::array<char, 1 << 16> bytes_;
};

MscclXmlReadBack::MscclXmlReadBack(std::ostream& out) : std::ostream(nullptr), buffer_(std::make_unique<Buffer>(out)) {
  rdbuf(buffer_.get());
}
MscclXmlReadBack::~MscclXmlReadBack() = default;

std::optional<std::string> MscclXmlReadBack::fault() { return buffer_->fault(); }

}  // namespace ddl
