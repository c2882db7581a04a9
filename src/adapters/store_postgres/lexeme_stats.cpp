#include "adapters/store_postgres/lexeme_stats.hpp"

#include <algorithm>
#include <cmath>

namespace agentgate {

std::vector<TermFrequency> LexemeStats::Estimate(pg::Connection& c,
                                                 const std::vector<std::string>& lexemes) {
  const std::lock_guard lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  if (!loaded_at_ || now - *loaded_at_ > kRefreshEvery) {
    Reload(c);
    loaded_at_ = now;
  }
  std::vector<TermFrequency> out;
  out.reserve(lexemes.size());
  for (const auto& lexeme : lexemes) {
    const auto listed = share_.find(lexeme);
    const double share = listed != share_.end() ? listed->second : unlisted_share_;
    out.push_back(TermFrequency{
        lexeme, std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(share * rows_)))});
  }
  return out;
}

void LexemeStats::Reload(pg::Connection& c) {
  auto rows = c.Exec(
      "SELECT greatest(reltuples, 0)::float8 FROM pg_class WHERE oid = 'memories'::regclass");
  rows_ = rows.size() > 0 ? rows.Double(0, 0) : 0;
  // most_common_elem_freqs holds one share per listed lexeme, then three summary figures; the
  // zipped unnest pads the lexemes with NULLs for those.
  auto listed = c.Exec(
      "SELECT lexeme, share FROM (SELECT unnest(most_common_elems::text::text[]) AS lexeme, "
      "unnest(most_common_elem_freqs)::float8 AS share FROM pg_stats WHERE schemaname = "
      "current_schema() AND tablename = 'memories' AND attname = 'fact_tsv') AS s "
      "WHERE lexeme IS NOT NULL");
  share_.clear();
  unlisted_share_ = 0;
  double rarest = 1;
  for (int i = 0; i < listed.size(); ++i) {
    const double share = listed.Double(i, 1);
    share_[listed.Text(i, 0)] = share;
    rarest = std::min(rarest, share);
  }
  if (!share_.empty()) unlisted_share_ = rarest / 2;
}

}  // namespace agentgate
