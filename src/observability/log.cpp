#include "observability/log.hpp"

#include "observability/thread_name.hpp"

#include <atomic>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdio>
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
    NameThisThread("ag-log");
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
  // Runs of characters that need no escape are appended whole.
  std::size_t run = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c != '"' && c != '\\' && static_cast<unsigned char>(c) >= 0x20) continue;
    out.append(s, run, i - run);
    run = i + 1;
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
      default: {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      }
    }
  }
  out.append(s, run);
  out += '"';
}

// std::to_chars: no locale and no printf (to_string(double) is a vsnprintf call).
template <class Number>
void AppendNumber(std::string& out, Number n) {
  char buf[32];
  const auto end = std::to_chars(buf, buf + sizeof buf, n).ptr;
  out.append(buf, end);
}

std::int64_t NowMs() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

// Writes `value` as exactly `width` digits ending just before `end`.
void PutDigits(char* end, int width, long long value) {
  for (int i = 1; i <= width; ++i, value /= 10) end[-i] = static_cast<char>('0' + value % 10);
}

}  // namespace

// By calendar arithmetic: gmtime_r and snprintf on every line were a visible share of a request's
// CPU.
std::string Timestamp(std::int64_t epoch_ms) {
  using namespace std::chrono;
  const sys_time<milliseconds> now{milliseconds(epoch_ms)};
  const auto day = floor<days>(now);
  const year_month_day date{day};
  const hh_mm_ss time{now - day};
  std::string out = "0000-00-00T00:00:00.000Z";
  char* p = out.data();
  PutDigits(p + 4, 4, static_cast<int>(date.year()) % 10000);
  PutDigits(p + 7, 2, static_cast<unsigned>(date.month()));
  PutDigits(p + 10, 2, static_cast<unsigned>(date.day()));
  PutDigits(p + 13, 2, time.hours().count());
  PutDigits(p + 16, 2, time.minutes().count());
  PutDigits(p + 19, 2, time.seconds().count());
  PutDigits(p + 23, 3, time.subseconds().count());
  return out;
}

void SetEnabled(bool enabled) {
  g_enabled = enabled;
}

void Flush() {
  TheWriter().Flush();
}

std::string Line(std::int64_t epoch_ms, std::string_view level, std::string_view event,
                 std::initializer_list<Field> fields, std::initializer_list<Field> more) {
  std::string line;
  line.reserve(256);
  line.append("{\"ts\":\"").append(Timestamp(epoch_ms)).append("\",\"level\":");
  AppendEscaped(line, level);
  line += ",\"event\":";
  AppendEscaped(line, event);
  const auto append = [&line](const Field& field) {
    const auto& [key, value] = field;
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
  };
  for (const auto& field : fields) append(field);
  for (const auto& field : more) append(field);
  line += "}\n";
  return line;
}

void Write(std::string_view level, std::string_view event, std::initializer_list<Field> fields,
           std::initializer_list<Field> more) {
  if (!g_enabled) return;
  TheWriter().Push(Line(NowMs(), level, event, fields, more));
}

}  // namespace agentgate::log
