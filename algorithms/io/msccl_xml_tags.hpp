#pragma once
// The tags of MSCCL's XML as msccl_xml_reader.cpp reads them: where an element is, for messages, and a tag's
// attributes checked against the element's list. A scanner of the writer's subset, not an XML parser.

#include <array>
#include <span>
#include <string>
#include <string_view>

#include "algorithms/io/msccl_xml_reader.hpp"

namespace ddl::msccl_xml {

inline bool isSpace(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }
inline bool isNameChar(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

// The element being read, by position (the document's ids must equal the positions); formatted only when
// something is wrong.
struct Location {
  int gpu = -1;
  int threadblock = -1;
  int step = -1;
  std::string text() const {
    if (gpu < 0) return "the document";
    std::string result = "gpu " + std::to_string(gpu);
    if (threadblock >= 0) result += " tb " + std::to_string(threadblock);
    if (step >= 0) result += " step " + std::to_string(step);
    return result;
  }
  [[noreturn]] void fail(const std::string& what) const { throw MscclXmlFault(text() + ": " + what); }
};

// std::string_view's == calls memcmp, which costs more than these few letters.
inline bool same(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}

inline bool startsWith(const char* at, const char* end, std::string_view prefix) {
  return static_cast<std::size_t>(end - at) >= prefix.size() && same({at, prefix.size()}, prefix);
}

// One tag's attributes by the index of their name in the element's list: each listed name exactly once and
// nothing else. Plain loops, and the writer's order tried first: four million steps are read this way.
class Attributes {
 public:
  // `text`: the tag after its element's name, up to its '>' or "/>".
  Attributes(std::string_view element, std::string_view text, std::span<const std::string_view> known, const Location& where)
      : element_(element), known_(known), where_(where) {
    unsigned found = 0;  // bit i: known[i] was seen
    std::size_t position = 0;
    for (const char *at = text.data(), *end = at + text.size();; ++position) {
      while (at != end && isSpace(*at)) ++at;
      if (at == end) break;
      // The name the writer puts here, if it is the one here; else whichever name is here.
      const char* name = at;
      std::size_t index = 0;
      if (position < known.size() && startsWith(at, end, known[position]) && at + known[position].size() != end &&
          !isNameChar(at[known[position].size()])) {
        index = position;
        at += known[position].size();
      } else {
        while (at != end && isNameChar(*at)) ++at;
        while (index < known.size() && !same({name, static_cast<std::size_t>(at - name)}, known[index])) ++index;
      }
      if (at == name || end - at < 2 || at[0] != '=' || (at[1] != '"' && at[1] != '\'')) fail("is malformed");
      const std::string_view attribute(name, static_cast<std::size_t>(at - name));
      const char quote = at[1], *value = at + 2;
      for (at = value; at != end && *at != quote;) ++at;
      if (at == end) fail("is malformed");
      if (index == known.size() || (found & 1u << index)) fail("has an unexpected " + std::string(attribute));
      found |= 1u << index;
      values_[index] = {value, static_cast<std::size_t>(at++ - value)};
    }
    for (std::size_t i = 0; i < known.size(); ++i)
      if (!(found & 1u << i)) fail("has no " + std::string(known[i]));
  }

  std::string_view text(std::size_t index) const { return values_[index]; }
  bool is(std::size_t index, std::string_view value) const { return same(values_[index], value); }
  // Decimal digits with an optional '-', by hand: std::from_chars costs a call, and a step has seven.
  std::int32_t integer(std::size_t index) const {
    const std::string_view value = values_[index];
    const bool negative = value.starts_with('-');
    std::int64_t result = 0;
    bool valid = value.size() > (negative ? 1u : 0u) && value.size() <= 11;
    for (std::size_t i = negative ? 1 : 0; valid && i < value.size(); ++i) {
      valid = value[i] >= '0' && value[i] <= '9';
      result = 10 * result + (value[i] - '0');
    }
    if (!valid || result > (negative ? 1LL << 31 : (1LL << 31) - 1))
      fail("has " + std::string(known_[index]) + "=\"" + std::string(value) + "\", no 32-bit integer");
    return static_cast<std::int32_t>(negative ? -result : result);
  }
  [[noreturn]] void fail(const std::string& what) const { where_.fail("<" + std::string(element_) + "> " + what); }

 private:
  std::string_view element_;
  std::span<const std::string_view> known_;
  const Location& where_;
  std::array<std::string_view, 10> values_;  // as many as <step> has, the most of any element
};

}  // namespace ddl::msccl_xml
