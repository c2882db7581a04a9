#pragma once
// Ranking over an agent version's trusted resources with BM25 (title and text as one document).

#include "domain/admin/agent_config.hpp"

#include <string>
#include <vector>

namespace agentgate {

struct ResourceHit {
  const TrustedResource* resource;
  double score;
};

class ResourceIndex {
 public:
  explicit ResourceIndex(const std::vector<TrustedResource>& resources);
  // Best first; only resources sharing at least one term with the query.
  std::vector<ResourceHit> Search(const std::string& query, std::size_t limit) const;

 private:
  struct Document {
    const TrustedResource* resource;
    std::vector<std::string> terms;
  };
  std::vector<Document> documents_;
  double average_length_ = 0;
};

// Lower-cased words of letters and digits (UTF-8 bytes above 0x7f count as letters).
std::vector<std::string> Terms(const std::string& text);

// The search_resources tool's answer: the best passages, each with its title and id.
std::string RenderHits(const std::vector<ResourceHit>& hits, std::size_t max_chars_each);

}  // namespace agentgate
