#pragma once
// A small Prometheus registry: counter, gauge and histogram families with labels, rendered in
// the text exposition format. Thread-safe; cheap enough for per-request use: each thread updates
// its own shard (whose mutex only Render ever contends), and Render sums the shards.

#include <atomic>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace agentgate {

class Metrics {
 public:
  // Views: a request's update allocates nothing once its series exists.
  using Label = std::pair<std::string_view, std::string_view>;
  using Labels = std::initializer_list<Label>;

  void Add(std::string_view counter, Labels labels, double value = 1);
  void AddGauge(std::string_view gauge, Labels labels, double delta);
  void Observe(std::string_view histogram, Labels labels, double value);

  // Families are declared once with their help text; using an undeclared one is a bug.
  void DeclareCounter(const std::string& name, const std::string& help);
  void DeclareGauge(const std::string& name, const std::string& help);
  // A gauge whose one series is read when the metrics are rendered, from a count its owner keeps
  // anyway; it takes no updates.
  void DeclareGauge(const std::string& name, const std::string& help, std::function<double()> read);
  // The same for a counter kept elsewhere (it only grows).
  void DeclareCounter(const std::string& name, const std::string& help,
                      std::function<double()> read);
  void DeclareHistogram(const std::string& name, const std::string& help,
                        std::vector<double> buckets);

  std::string Render() const;

  Metrics();
  ~Metrics();
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

 private:
  struct Family {
    std::string type;
    std::string help;
    std::vector<double> buckets;
    std::function<double()> read;  // set for a series read at render time
  };
  struct HistogramSeries {
    std::vector<double> bounds;  // the family's buckets, copied when the series began
    std::vector<std::uint64_t> bucket_counts;
    double sum = 0;
    std::uint64_t count = 0;
  };
  // One thread's updates, keyed by family name, '\x1f', rendered labels.
  struct Shard {
    std::mutex mutex;
    std::unordered_map<std::string, double> values;
    std::unordered_map<std::string, HistogramSeries> histograms;
  };

  Shard& LocalShard();
  void Bump(std::string_view name, const char* type, Labels labels, double delta);
  // Checks the family is declared with this type (once per series and thread); its buckets.
  std::vector<double> Checked(std::string_view name, const char* type) const;

  const std::uint64_t id_;  // tells this registry's shards from a destroyed one's at its address
  mutable std::mutex mutex_;
  std::map<std::string, Family, std::less<>> families_;
  std::vector<std::unique_ptr<Shard>> shards_;
};

// Declares the families agentgate exports; called once by the wiring.
void DeclareAgentgateMetrics(Metrics& metrics);

}  // namespace agentgate
