#include "domain/agent/resource_search.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <unordered_map>

namespace agentgate {
namespace {

constexpr double kK1 = 1.2;
constexpr double kB = 0.75;

}  // namespace

std::vector<std::string> Terms(const std::string& text) {
  std::vector<std::string> out;
  std::string current;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || u >= 0x80) {
      current += static_cast<char>(std::tolower(u));
    } else if (!current.empty()) {
      out.push_back(std::move(current));
      current.clear();
    }
  }
  if (!current.empty()) out.push_back(std::move(current));
  return out;
}

ResourceIndex::ResourceIndex(const std::vector<TrustedResource>& resources) {
  std::vector<std::unordered_map<std::string, int>> frequencies;
  std::vector<double> lengths;
  double total_length = 0;
  for (const auto& r : resources) {
    auto& frequency = frequencies.emplace_back();
    const auto terms = Terms(r.title + " " + r.text);
    for (const auto& t : terms) ++frequency[t];
    documents_.push_back(&r);
    lengths.push_back(static_cast<double>(terms.size()));
    total_length += lengths.back();
  }
  if (documents_.empty()) return;
  const double n = static_cast<double>(documents_.size());
  const double average_length = std::max(1.0, total_length / n);
  std::unordered_map<std::string, double> containing;
  for (const auto& frequency : frequencies) {
    for (const auto& [term, count] : frequency) containing[term] += 1;
  }
  for (std::size_t d = 0; d < frequencies.size(); ++d) {
    for (const auto& [term, count] : frequencies[d]) {
      const double df = containing[term];
      const double idf = std::log(1 + (n - df + 0.5) / (df + 0.5));
      const double tf = count;
      const double weight =
          idf * tf * (kK1 + 1) / (tf + kK1 * (1 - kB + kB * lengths[d] / average_length));
      postings_[term].push_back(Posting{d, weight});
    }
  }
}

std::vector<ResourceHit> ResourceIndex::Search(const std::string& query, std::size_t limit) const {
  auto query_terms = Terms(query);
  std::sort(query_terms.begin(), query_terms.end());
  query_terms.erase(std::unique(query_terms.begin(), query_terms.end()), query_terms.end());
  std::unordered_map<std::size_t, double> scores;
  for (const auto& term : query_terms) {
    auto it = postings_.find(term);
    if (it == postings_.end()) continue;
    for (const auto& posting : it->second) scores[posting.document] += posting.weight;
  }
  std::vector<std::pair<std::size_t, double>> ranked(scores.begin(), scores.end());
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  if (ranked.size() > limit) ranked.resize(limit);
  std::vector<ResourceHit> hits;
  hits.reserve(ranked.size());
  for (const auto& [document, score] : ranked) {
    if (score > 0) hits.push_back(ResourceHit{documents_[document], score});
  }
  return hits;
}

std::string RenderHits(const std::vector<ResourceHit>& hits, std::size_t max_chars_each) {
  if (hits.empty()) return "No trusted resource matches that query.";
  std::string out;
  for (const auto& hit : hits) {
    if (!out.empty()) out += "\n\n";
    std::string text = hit.resource->text;
    if (text.size() > max_chars_each) text = text.substr(0, max_chars_each) + "...";
    out += "[" + hit.resource->id + "] " + hit.resource->title + "\n" + text;
  }
  return out;
}

}  // namespace agentgate
