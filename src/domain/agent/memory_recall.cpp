#include "domain/agent/memory_recall.hpp"

#include "domain/agent/resource_search.hpp"

#include <algorithm>
#include <set>
#include <string_view>

namespace agentgate {
namespace {

// Words too common to say which fact is meant (they would match nearly every fact and cost the
// engine a scan of them all).
bool IsStopWord(std::string_view word) {
  static const std::set<std::string_view> kStopWords{
      "a",     "about", "after", "all",  "also",  "am",    "an",   "and",   "any",   "are",
      "as",    "at",    "be",    "been", "but",   "by",    "can",  "could", "did",   "do",
      "does",  "for",   "from",  "get",  "had",   "has",   "have", "he",    "her",   "him",
      "his",   "how",   "i",     "if",   "in",    "into",  "is",   "it",    "its",   "just",
      "me",    "my",    "no",    "not",  "of",    "on",    "or",   "our",   "she",   "so",
      "some",  "than",  "that",  "the",  "their", "them",  "then", "there", "these", "they",
      "this",  "to",    "up",    "us",   "was",   "we",    "were", "what",  "when",  "where",
      "which", "who",   "why",   "will", "with",  "would", "you",  "your"};
  return kStopWords.contains(word);
}

}  // namespace

std::vector<std::string> RecallTerms(const std::string& message, std::size_t max_terms) {
  std::vector<std::string> out;
  for (auto& term : Terms(message)) {
    if (out.size() >= max_terms) break;
    if (term.size() < 2 || IsStopWord(term)) continue;
    if (std::find(out.begin(), out.end(), term) != out.end()) continue;
    out.push_back(std::move(term));
  }
  return out;
}

RecallPlan PlanRecall(std::vector<TermFrequency> frequencies, std::int64_t budget) {
  std::erase_if(frequencies, [](const TermFrequency& f) { return f.facts <= 0; });
  // Stable: among equally rare terms the message's order decides.
  std::stable_sort(
      frequencies.begin(), frequencies.end(),
      [](const TermFrequency& a, const TermFrequency& b) { return a.facts < b.facts; });
  RecallPlan plan;
  if (frequencies.empty()) return plan;
  if (frequencies.front().facts > budget) {
    plan.terms.push_back(std::move(frequencies.front().term));
    plan.ranked = false;
    return plan;
  }
  std::int64_t candidates = 0;
  for (auto& f : frequencies) {
    if (candidates + f.facts > budget) break;
    candidates += f.facts;
    plan.terms.push_back(std::move(f.term));
  }
  return plan;
}

}  // namespace agentgate
