#pragma once
// Text as an XML attribute value holds it, for the exporters (SimGrid's platform, MSCCL's algorithm): names
// come from users' files, and `nvlink "a" & <b>` written as it is leaves a file no XML parser reads.

#include <string>

namespace ddl {

// `text` with & < > " ' as entities, and tab, newline and carriage return as character references (an
// attribute's parser would turn them into spaces). Throws InvalidArgument(`field`, ...) for the other
// control characters, which XML 1.0 cannot hold in any form.
std::string xmlAttribute(const std::string& text, const std::string& field);

}  // namespace ddl
