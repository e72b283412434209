#include "common/xml_text.hpp"

#include <cstdio>

#include "common/invalid_argument.hpp"

namespace ddl {

std::string xmlAttribute(const std::string& text, const std::string& field) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      case '\t': out += "&#9;"; break;
      case '\n': out += "&#10;"; break;
      case '\r': out += "&#13;"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          char code[8];
          std::snprintf(code, sizeof code, "U+%04X", static_cast<unsigned>(static_cast<unsigned char>(c)));
          throw InvalidArgument(field, "'" + text.substr(0, text.find(c)) + "...' holds the control character " + code +
                                           ", which no XML file can hold: rename it");
        }
        out += c;
    }
  }
  return out;
}

}  // namespace ddl
