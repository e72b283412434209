#pragma once
// What a wait that passed its deadline says about the messages it still had: how many, and which peers
// they wait for, so that the rank that never answered can be found from any rank's message.

#include <cstddef>
#include <set>
#include <string>
#include <utility>

#include "common/rank.hpp"

namespace ddl {

// "3 messages still wait for its peer: sends to rank 1; receives from ranks 2, 3".
inline std::string describePendingMessages(std::size_t count, const std::set<Rank>& sendingTo, const std::set<Rank>& receivingFrom) {
  auto list = [](const std::set<Rank>& ranks) {
    std::string text = ranks.size() > 1 ? "s " : " ";
    bool first = true;
    for (Rank rank : ranks) text += (std::exchange(first, false) ? "" : ", ") + std::to_string(rank);
    return text;
  };
  std::string text = std::to_string(count) + (count == 1 ? " message still waits" : " messages still wait") + " for its peer:";
  if (!sendingTo.empty()) text += " sends to rank" + list(sendingTo) + (receivingFrom.empty() ? "" : ";");
  if (!receivingFrom.empty()) text += " receives from rank" + list(receivingFrom);
  return text;
}

}  // namespace ddl
