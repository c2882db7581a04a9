#include "domain/tracing/trace_context.hpp"

#include <algorithm>

namespace agentgate::tracing {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;  // upper case is not allowed
}

// Reads exactly `N` bytes of lower-case hex.
template <std::size_t N>
bool ReadHex(std::string_view text, std::array<std::uint8_t, N>& out) {
  if (text.size() != N * 2) return false;
  for (std::size_t i = 0; i < N; ++i) {
    const int high = HexDigit(text[2 * i]);
    const int low = HexDigit(text[2 * i + 1]);
    if (high < 0 || low < 0) return false;
    out[i] = static_cast<std::uint8_t>(high * 16 + low);
  }
  return true;
}

template <std::size_t N>
bool AllZero(const std::array<std::uint8_t, N>& bytes) {
  return std::all_of(bytes.begin(), bytes.end(), [](std::uint8_t b) { return b == 0; });
}

}  // namespace

void WriteHex(const std::uint8_t* bytes, std::size_t size, char* out) {
  static constexpr char kDigits[] = "0123456789abcdef";
  for (std::size_t i = 0; i < size; ++i) {
    out[2 * i] = kDigits[bytes[i] >> 4];
    out[2 * i + 1] = kDigits[bytes[i] & 0xf];
  }
}

std::string Hex(const std::uint8_t* bytes, std::size_t size) {
  std::string out(size * 2, '0');
  WriteHex(bytes, size, out.data());
  return out;
}

std::optional<TraceContext> ParseTraceparent(std::string_view header, std::string_view tracestate) {
  // version "-" trace-id "-" parent-id "-" flags: 2 + 1 + 32 + 1 + 16 + 1 + 2 = 55.
  if (header.size() < 55 || header[2] != '-' || header[35] != '-' || header[52] != '-')
    return std::nullopt;
  std::array<std::uint8_t, 1> version{};
  std::array<std::uint8_t, 1> flags{};
  TraceContext context;
  if (!ReadHex(header.substr(0, 2), version) || version[0] == 0xff ||
      !ReadHex(header.substr(3, 32), context.trace_id) ||
      !ReadHex(header.substr(36, 16), context.span_id) || !ReadHex(header.substr(53, 2), flags))
    return std::nullopt;
  // Version 00 is exactly 55 characters; a later version may add fields after a dash.
  if (header.size() > 55 && (version[0] == 0 || header[55] != '-')) return std::nullopt;
  if (AllZero(context.trace_id) || AllZero(context.span_id)) return std::nullopt;
  context.sampled = (flags[0] & 0x01) != 0;
  if (tracestate.size() <= 512) context.tracestate = std::string(tracestate);
  return context;
}

std::string FormatTraceparent(const TraceId& trace_id, const SpanId& span_id, bool sampled) {
  std::string out(55, '-');  // 00-<32 hex>-<16 hex>-<2 hex>, written in place
  out[0] = out[1] = out[53] = '0';
  WriteHex(trace_id.data(), trace_id.size(), out.data() + 3);
  WriteHex(span_id.data(), span_id.size(), out.data() + 36);
  out[54] = sampled ? '1' : '0';
  return out;
}

bool SampledByRatio(const TraceId& trace_id, double ratio) {
  if (ratio <= 0) return false;
  if (ratio >= 1) return true;
  std::uint64_t low = 0;
  for (std::size_t i = 8; i < 16; ++i) low = (low << 8) | trace_id[i];
  // Compared in halves so the bound fits 64 bits: low/2 < ratio * 2^63.
  const auto bound = static_cast<std::uint64_t>(ratio * 9223372036854775808.0);
  return (low >> 1) < bound;
}

}  // namespace agentgate::tracing
