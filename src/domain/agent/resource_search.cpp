#include "domain/agent/resource_search.hpp"

#include <algorithm>
#include <cmath>
#include <map>

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
  double total = 0;
  for (const auto& r : resources) {
    documents_.push_back(Document{&r, Terms(r.title + " " + r.text)});
    total += static_cast<double>(documents_.back().terms.size());
  }
  if (!documents_.empty()) average_length_ = total / static_cast<double>(documents_.size());
}

std::vector<ResourceHit> ResourceIndex::Search(const std::string& query, std::size_t limit) const {
  auto query_terms = Terms(query);
  std::sort(query_terms.begin(), query_terms.end());
  query_terms.erase(std::unique(query_terms.begin(), query_terms.end()), query_terms.end());
  const double n = static_cast<double>(documents_.size());
  std::vector<ResourceHit> hits;
  for (const auto& doc : documents_) {
    std::map<std::string, int> frequency;
    for (const auto& t : doc.terms) ++frequency[t];
    double score = 0;
    for (const auto& term : query_terms) {
      auto it = frequency.find(term);
      if (it == frequency.end()) continue;
      double containing = 0;
      for (const auto& other : documents_) {
        if (std::find(other.terms.begin(), other.terms.end(), term) != other.terms.end())
          ++containing;
      }
      const double idf = std::log(1 + (n - containing + 0.5) / (containing + 0.5));
      const double tf = it->second;
      const double length = static_cast<double>(doc.terms.size());
      score += idf * tf * (kK1 + 1) /
               (tf + kK1 * (1 - kB + kB * length / std::max(1.0, average_length_)));
    }
    if (score > 0) hits.push_back(ResourceHit{doc.resource, score});
  }
  std::stable_sort(hits.begin(), hits.end(),
                   [](const auto& a, const auto& b) { return a.score > b.score; });
  if (hits.size() > limit) hits.resize(limit);
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
