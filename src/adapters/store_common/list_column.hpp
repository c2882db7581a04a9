#pragma once
// A short list of names (a token's environments) kept in one text column, comma-separated.

#include <string>
#include <vector>

namespace agentgate {

inline std::string JoinList(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ",") + item;
  return out;
}

inline std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  std::string item;
  for (char c : s) {
    if (c != ',') {
      item += c;
    } else if (!item.empty()) {
      out.push_back(std::move(item));
      item.clear();
    }
  }
  if (!item.empty()) out.push_back(std::move(item));
  return out;
}

}  // namespace agentgate
