#include "domain/credential_redaction.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace agentgate {
namespace {

constexpr std::array<std::string_view, 10> kKeyPrefixes = {
    "sk-", "sk_", "rk_", "pk_", "sess-", "AKIA", "ghp_", "xoxb-", "xoxp-", "AIza"};
constexpr std::size_t kShortestSecret = 8;
constexpr std::size_t kLongRandomWord = 32;

bool IsWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '*' ||
         c == '.';
}

bool LooksLikeCredential(std::string_view word) {
  for (const auto prefix : kKeyPrefixes)
    if (word.starts_with(prefix) && word.size() > prefix.size() + 3) return true;
  if (word.find("**") != std::string_view::npos) return true;
  if (word.size() < kLongRandomWord) return false;
  const bool letters = std::any_of(
      word.begin(), word.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
  const bool digits = std::any_of(
      word.begin(), word.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  return letters && digits;
}

std::string ReplaceAll(std::string text, std::string_view secret) {
  for (std::size_t at = text.find(secret); at != std::string::npos;
       at = text.find(secret, at + kRedacted.size()))
    text.replace(at, secret.size(), kRedacted);
  return text;
}

}  // namespace

std::string RedactCredentials(std::string_view text, const std::vector<std::string>& secrets) {
  std::string known(text);
  for (const auto& secret : secrets)
    if (secret.size() >= kShortestSecret) known = ReplaceAll(std::move(known), secret);
  std::string out;
  out.reserve(known.size());
  std::size_t i = 0;
  while (i < known.size()) {
    if (!IsWordChar(known[i])) {
      out += known[i++];
      continue;
    }
    std::size_t end = i;
    while (end < known.size() && IsWordChar(known[end])) ++end;
    std::string_view word(known.data() + i, end - i);
    // A sentence's full stop is not part of the word it ends.
    std::size_t stops = 0;
    while (stops < word.size() && word[word.size() - 1 - stops] == '.') ++stops;
    const std::string_view bare = word.substr(0, word.size() - stops);
    if (LooksLikeCredential(bare)) {
      out += kRedacted;
      out.append(stops, '.');
    } else {
      out += word;
    }
    i = end;
  }
  return out;
}

}  // namespace agentgate
