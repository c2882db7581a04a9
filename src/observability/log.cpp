#include "observability/log.hpp"

#include <atomic>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <ctime>
#include <deque>
#include <mutex>
#include <thread>

namespace agentgate::log {
namespace {

std::atomic<bool> g_enabled{true};

// Lines are handed to one writer thread so a slow reader of stdout never blocks an I/O thread.
// Past kMaxQueued lines the newest are dropped and counted rather than waited for. Only the line
// that finds the queue empty wakes the writer, which then lets lines gather for kGather before
// writing them all: under load a wake-up (a futex call and a context switch) serves hundreds of
// lines instead of one each, and a line still reaches stdout within a few milliseconds.
class Writer {
 public:
  Writer() : thread_([this] { Run(); }) {}
  ~Writer() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    ready_.notify_one();
    thread_.join();
  }

  void Push(std::string line) {
    bool wake = false;
    {
      std::lock_guard lock(mutex_);
      if (queue_.size() >= kMaxQueued) {
        ++dropped_;
        return;
      }
      wake = queue_.empty();
      queue_.push_back(std::move(line));
    }
    if (wake) ready_.notify_one();
  }

  void Flush() {
    std::unique_lock lock(mutex_);
    drained_.wait(lock, [&] { return queue_.empty() && !writing_; });
  }

 private:
  static constexpr std::size_t kMaxQueued = 100000;
  static constexpr std::chrono::milliseconds kGather{5};

  void Run() {
    std::unique_lock lock(mutex_);
    for (;;) {
      ready_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty() && stopping_) return;
      if (!stopping_) {
        lock.unlock();
        std::this_thread::sleep_for(kGather);
        lock.lock();
      }
      std::deque<std::string> batch;
      batch.swap(queue_);
      std::uint64_t dropped = std::exchange(dropped_, 0);
      writing_ = true;
      lock.unlock();
      for (const auto& line : batch) std::fwrite(line.data(), 1, line.size(), stdout);
      if (dropped > 0)
        std::fprintf(stdout,
                     "{\"level\":\"warn\",\"event\":\"log_lines_dropped\",\"count\":%llu}\n",
                     static_cast<unsigned long long>(dropped));
      std::fflush(stdout);
      lock.lock();
      writing_ = false;
      drained_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  std::condition_variable drained_;
  std::deque<std::string> queue_;
  std::uint64_t dropped_ = 0;
  bool writing_ = false;
  bool stopping_ = false;
  std::thread thread_;
};

Writer& TheWriter() {
  static Writer writer;
  return writer;
}

void AppendEscaped(std::string& out, std::string_view s) {
  out += '"';
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

// std::to_chars: no locale and no printf (to_string(double) is a vsnprintf call).
template <class Number>
void AppendNumber(std::string& out, Number n) {
  char buf[32];
  const auto end = std::to_chars(buf, buf + sizeof buf, n).ptr;
  out.append(buf, end);
}

std::string Timestamp() {
  const auto now = std::chrono::system_clock::now();
  const auto t = std::chrono::system_clock::to_time_t(now);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

}  // namespace

void SetEnabled(bool enabled) {
  g_enabled = enabled;
}

void Flush() {
  TheWriter().Flush();
}

void Write(std::string_view level, std::string_view event, std::initializer_list<Field> fields) {
  if (!g_enabled) return;
  std::string line;
  line.reserve(256);
  line.append("{\"ts\":\"").append(Timestamp()).append("\",\"level\":");
  AppendEscaped(line, level);
  line += ",\"event\":";
  AppendEscaped(line, event);
  for (const auto& [key, value] : fields) {
    line += ',';
    AppendEscaped(line, key);
    line += ':';
    std::visit(
        [&](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, std::string_view>)
            AppendEscaped(line, v);
          else if constexpr (std::is_same_v<T, bool>)
            line += v ? "true" : "false";
          else
            AppendNumber(line, v);
        },
        value);
  }
  line += "}\n";
  TheWriter().Push(std::move(line));
}

}  // namespace agentgate::log
