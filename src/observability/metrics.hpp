#pragma once
// A small Prometheus registry: counter, gauge and histogram families with labels, rendered in
// the text exposition format. Thread-safe; cheap enough for per-request use.

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace agentgate {

class Metrics {
 public:
  using Labels = std::vector<std::pair<std::string, std::string>>;

  void Add(const std::string& counter, const Labels& labels, double value = 1);
  void AddGauge(const std::string& gauge, const Labels& labels, double delta);
  void Observe(const std::string& histogram, const Labels& labels, double value);

  // Families are declared once with their help text; using an undeclared one is a bug.
  void DeclareCounter(const std::string& name, const std::string& help);
  void DeclareGauge(const std::string& name, const std::string& help);
  void DeclareHistogram(const std::string& name, const std::string& help,
                        std::vector<double> buckets);

  std::string Render() const;

 private:
  struct HistogramSeries {
    std::vector<std::uint64_t> bucket_counts;
    double sum = 0;
    std::uint64_t count = 0;
  };
  struct Family {
    std::string type;
    std::string help;
    std::vector<double> buckets;
    std::map<std::string, double> values;               // rendered labels -> value
    std::map<std::string, HistogramSeries> histograms;  // rendered labels -> series
  };

  Family& Get(const std::string& name, const char* type);

  mutable std::mutex mutex_;
  std::map<std::string, Family> families_;
};

// Declares the families agentgate exports; called once by the wiring.
void DeclareAgentgateMetrics(Metrics& metrics);

}  // namespace agentgate
