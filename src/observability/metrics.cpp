#include "observability/metrics.hpp"

#include <charconv>
#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace agentgate {
namespace {

void AppendLabels(std::string& out, Metrics::Labels labels) {
  bool first = true;
  for (const auto& [k, v] : labels) {
    if (!first) out += ',';
    first = false;
    out.append(k).append("=\"");
    // A value is appended in stretches between the characters it escapes (usually in one piece:
    // every metric update of a turn builds its series' key).
    std::size_t from = 0;
    for (std::size_t at = 0; at < v.size(); ++at) {
      const char c = v[at];
      if (c != '"' && c != '\\' && c != '\n') continue;
      out.append(v.data() + from, at - from);
      out += c == '\n' ? "\\n" : c == '"' ? "\\\"" : "\\\\";
      from = at + 1;
    }
    out.append(v.data() + from, v.size() - from);
    out += '"';
  }
}

// A series' key: its family, '\x1f', its rendered labels. Built in a buffer the thread reuses.
const std::string& SeriesKey(std::string_view name, Metrics::Labels labels) {
  thread_local std::string key;
  key.assign(name);
  key += '\x1f';
  AppendLabels(key, labels);
  return key;
}

// The shortest text that reads back to the same double: bucket bounds print as written
// (le="0.005", not le="0.0050000000000000001").
std::string Number(double v) {
  char buf[64];
  const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
  return std::string(buf, end);
}

std::string WithLabels(const std::string& name, const std::string& labels,
                       const std::string& extra = "") {
  std::string all = labels;
  if (!extra.empty()) all += (all.empty() ? "" : ",") + extra;
  return all.empty() ? name : name + "{" + all + "}";
}

}  // namespace

std::atomic<std::uint64_t> next_registry_id{1};

Metrics::Metrics() : id_(next_registry_id++) {}
Metrics::~Metrics() = default;

void Metrics::DeclareCounter(const std::string& name, const std::string& help) {
  std::lock_guard lock(mutex_);
  families_[name] = Family{"counter", help, {}, {}};
}

void Metrics::DeclareGauge(const std::string& name, const std::string& help) {
  std::lock_guard lock(mutex_);
  families_[name] = Family{"gauge", help, {}, {}};
}

void Metrics::DeclareGauge(const std::string& name, const std::string& help,
                           std::function<double()> read) {
  std::lock_guard lock(mutex_);
  families_[name] = Family{"gauge", help, {}, std::move(read)};
}

void Metrics::DeclareCounter(const std::string& name, const std::string& help,
                             std::function<double()> read) {
  std::lock_guard lock(mutex_);
  families_[name] = Family{"counter", help, {}, std::move(read)};
}

void Metrics::DeclareHistogram(const std::string& name, const std::string& help,
                               std::vector<double> buckets) {
  std::lock_guard lock(mutex_);
  families_[name] = Family{"histogram", help, std::move(buckets), {}};
}

std::vector<double> Metrics::Checked(std::string_view name, const char* type) const {
  std::lock_guard lock(mutex_);
  auto it = families_.find(name);
  if (it == families_.end() || it->second.type != type || it->second.read) {
    throw std::logic_error("metric family not declared for updates: " + std::string(name));
  }
  return it->second.buckets;
}

Metrics::Shard& Metrics::LocalShard() {
  // The registries this thread has a shard in (a server has one; tests make a few). Ids are never
  // reused, so an entry of a destroyed registry is never matched again; the list stays short.
  struct Entry {
    std::uint64_t registry;
    Shard* shard;
  };
  thread_local std::vector<Entry> mine;
  for (const auto& e : mine) {
    if (e.registry == id_) return *e.shard;
  }
  std::lock_guard lock(mutex_);
  shards_.push_back(std::make_unique<Shard>());
  if (mine.size() == 8) mine.erase(mine.begin());
  mine.push_back(Entry{id_, shards_.back().get()});
  return *shards_.back();
}

// The shard's own thread is its only writer, so a series missing under the lock is still missing
// after the family check, which takes the registry's lock and so runs outside the shard's (Render
// takes the registry's, then each shard's).
void Metrics::Bump(std::string_view name, const char* type, Labels labels, double delta) {
  const std::string& key = SeriesKey(name, labels);
  Shard& shard = LocalShard();
  {
    std::lock_guard lock(shard.mutex);
    if (auto it = shard.values.find(key); it != shard.values.end()) {
      it->second += delta;
      return;
    }
  }
  Checked(name, type);
  std::lock_guard lock(shard.mutex);
  shard.values[key] += delta;
}

void Metrics::Add(std::string_view counter, Labels labels, double value) {
  Bump(counter, "counter", labels, value);
}

void Metrics::AddGauge(std::string_view gauge, Labels labels, double delta) {
  Bump(gauge, "gauge", labels, delta);
}

void Metrics::Observe(std::string_view histogram, Labels labels, double value) {
  const std::string& key = SeriesKey(histogram, labels);
  Shard& shard = LocalShard();
  std::unique_lock lock(shard.mutex);
  auto it = shard.histograms.find(key);
  if (it == shard.histograms.end()) {
    lock.unlock();
    HistogramSeries fresh;
    fresh.bounds = Checked(histogram, "histogram");
    fresh.bucket_counts.assign(fresh.bounds.size(), 0);
    lock.lock();
    it = shard.histograms.emplace(key, std::move(fresh)).first;
  }
  auto& series = it->second;
  for (std::size_t i = 0; i < series.bounds.size(); ++i) {
    if (value <= series.bounds[i]) ++series.bucket_counts[i];
  }
  series.sum += value;
  ++series.count;
}

std::string Metrics::Render() const {
  // Sums the shards per series, ordered by family and labels.
  std::map<std::string, std::map<std::string, double>> values;
  std::map<std::string, std::map<std::string, HistogramSeries>> histograms;
  std::lock_guard lock(mutex_);
  for (const auto& shard : shards_) {
    std::lock_guard shard_lock(shard->mutex);
    for (const auto& [key, value] : shard->values) {
      const auto cut = key.find('\x1f');
      values[key.substr(0, cut)][key.substr(cut + 1)] += value;
    }
    for (const auto& [key, series] : shard->histograms) {
      const auto cut = key.find('\x1f');
      auto& total = histograms[key.substr(0, cut)][key.substr(cut + 1)];
      if (total.bucket_counts.empty()) total.bucket_counts.assign(series.bucket_counts.size(), 0);
      for (std::size_t i = 0; i < series.bucket_counts.size() && i < total.bucket_counts.size();
           ++i) {
        total.bucket_counts[i] += series.bucket_counts[i];
      }
      total.sum += series.sum;
      total.count += series.count;
    }
  }
  std::ostringstream out;
  for (const auto& [name, family] : families_) {
    out << "# HELP " << name << ' ' << family.help << "\n# TYPE " << name << ' ' << family.type
        << '\n';
    if (family.read) out << name << ' ' << Number(family.read()) << '\n';
    for (const auto& [labels, value] : values[name])
      out << WithLabels(name, labels) << ' ' << Number(value) << '\n';
    for (const auto& [labels, series] : histograms[name]) {
      for (std::size_t i = 0; i < family.buckets.size() && i < series.bucket_counts.size(); ++i) {
        out << WithLabels(name + "_bucket", labels, "le=\"" + Number(family.buckets[i]) + "\"")
            << ' ' << series.bucket_counts[i] << '\n';
      }
      out << WithLabels(name + "_bucket", labels, "le=\"+Inf\"") << ' ' << series.count << '\n';
      out << WithLabels(name + "_sum", labels) << ' ' << Number(series.sum) << '\n';
      out << WithLabels(name + "_count", labels) << ' ' << series.count << '\n';
    }
  }
  return out.str();
}

void DeclareAgentgateMetrics(Metrics& m) {
  const std::vector<double> latency{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                                    1,     2.5,  5,     10,   30,  60,   120};
  m.DeclareCounter("agentgate_http_requests_total", "HTTP requests by route and status.");
  m.DeclareHistogram("agentgate_http_request_duration_seconds", "HTTP request duration by route.",
                     latency);
  m.DeclareGauge("agentgate_http_requests_in_flight", "HTTP requests being handled.");
  m.DeclareGauge("agentgate_http_connections_open", "Client connections open.");
  m.DeclareCounter("agentgate_handoff_spins_total",
                   "Spins for a turn's commit hand-off by thread (io, committer) and outcome "
                   "(caught, timed_out, contended).");
  m.DeclareCounter("agentgate_http_connections_closed_total",
                   "Client connections closed by the server: header_timeout, read_timeout, "
                   "idle_timeout, reclaimed (an idle keep-alive closed to make room).");
  m.DeclareHistogram("agentgate_turn_duration_seconds", "Agent turn duration.", latency);
  m.DeclareCounter("agentgate_turn_stops_total",
                   "Agent turns by stop reason (none = normal finish).");
  m.DeclareCounter("agentgate_turns_superseded_total",
                   "Turns a newer call on their conversation interrupted (if_busy interrupt).");
  m.DeclareCounter("agentgate_model_calls_total", "Model calls by provider and outcome.");
  m.DeclareCounter("agentgate_model_tokens_total",
                   "Model tokens by provider and direction (input, cached_input, cache_write, "
                   "output; the cached ones are part of input).");
  m.DeclareGauge("agentgate_model_key_state",
                 "A provider key's circuit breaker: 0 closed, 1 open, 2 half-open (probing).");
  m.DeclareCounter("agentgate_model_key_breaker_opened_total",
                   "Times a provider key's circuit breaker opened.");
  m.DeclareCounter("agentgate_model_key_cooldowns_total",
                   "Times a provider key answered 429 and cooled down for its Retry-After.");
  m.DeclareCounter("agentgate_model_fallbacks_total",
                   "Model calls moved down an agent's chain, by the provider left and the one "
                   "moved to.");
  m.DeclareCounter("agentgate_spend_reserved_usd_total",
                   "Model spend reserved (worst cases) in USD.");
  m.DeclareCounter("agentgate_spend_settled_usd_total", "Model spend settled (real costs) in USD.");
  m.DeclareCounter("agentgate_spend_refusals_total",
                   "Model calls refused by a monthly spend limit.");
  m.DeclareCounter("agentgate_idempotency_total", "Idempotency-Key claims by outcome.");
  m.DeclareCounter("agentgate_rate_limited_total", "Calls refused by the per-conversation window.");
  m.DeclareCounter("agentgate_runs_started_total", "Background runs this server started.");
  m.DeclareCounter("agentgate_runs_paused_total",
                   "Runs paused for a person's approval of their tool calls.");
  m.DeclareCounter("agentgate_runs_ended_total",
                   "Background runs this server ended, by status (completed, failed, canceled).");
  m.DeclareCounter("agentgate_webhook_attempts_total",
                   "Webhook delivery attempts by outcome (delivered, failed).");
  m.DeclareCounter("agentgate_trace_spans_exported_total",
                   "Spans a collector accepted (docs/tracing.md).");
  m.DeclareCounter("agentgate_trace_spans_dropped_total",
                   "Spans not exported, by reason (queue_full, export_failed, rejected).");
  m.DeclareCounter("agentgate_trace_export_requests_total",
                   "OTLP export requests by outcome (ok, retried, failed).");
  m.DeclareHistogram("agentgate_gateway_upstream_duration_seconds",
                     "Metadata gateway upstream call latency.", latency);
  // The OpenTelemetry GenAI client metrics, with the conventions' bucket boundaries.
  m.DeclareHistogram(
      "gen_ai_client_operation_duration_seconds",
      "gen_ai.client.operation.duration: model calls by provider, requested model "
      "and error type.",
      {0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92});
  m.DeclareHistogram(
      "gen_ai_client_token_usage",
      "gen_ai.client.token.usage: tokens per model call by provider, requested "
      "model and token type (input, output).",
      {1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864});
}

}  // namespace agentgate
