#pragma once
// Ranking over an agent version's trusted resources with BM25 (title and text as one document).
// Versions are immutable, so the index is built once when a version is loaded: a query costs only
// the postings of its own words, never a pass over the documents.

#include "domain/admin/agent_config.hpp"

#include <string>
#include <unordered_map>
#include <vector>

namespace agentgate {

struct ResourceHit {
  const TrustedResource* resource;
  double score;
};

class ResourceIndex {
 public:
  explicit ResourceIndex(const std::vector<TrustedResource>& resources);
  // Best first (ties: configuration order); only resources sharing a word with the query.
  std::vector<ResourceHit> Search(const std::string& query, std::size_t limit) const;

 private:
  struct Posting {
    std::size_t document;
    double weight;  // the term's BM25 contribution to this document, idf included
  };
  std::vector<const TrustedResource*> documents_;
  std::unordered_map<std::string, std::vector<Posting>> postings_;
};

// Lower-cased words of letters and digits (UTF-8 bytes above 0x7f count as letters).
std::vector<std::string> Terms(const std::string& text);

// The search_resources tool's answer: the best passages, each with its title and id.
std::string RenderHits(const std::vector<ResourceHit>& hits, std::size_t max_chars_each);

}  // namespace agentgate
