#include "adapters/otlp/otlp_encoding.hpp"

#include <boost/container/small_vector.hpp>

#include <bit>
#include <cassert>
#include <cstdint>
#include <cstring>

namespace agentgate::otlp {
namespace {

// Protobuf's wire format, as far as these messages need it. A length-delimited field's length is
// computed before the field is written, so each message is written once, in place.
enum WireType : std::uint32_t { kVarint = 0, kFixed64 = 1, kLen = 2, kFixed32 = 5 };

// Field numbers (proto/opentelemetry/proto/...).
namespace field {
constexpr int kRequestResourceSpans = 1;
constexpr int kResourceSpansResource = 1, kResourceSpansScopeSpans = 2;
constexpr int kResourceAttributes = 1;
constexpr int kScopeSpansScope = 1, kScopeSpansSpans = 2;
constexpr int kScopeName = 1, kScopeVersion = 2;
constexpr int kTraceId = 1, kSpanId = 2, kTraceState = 3, kParentSpanId = 4, kName = 5, kKind = 6,
              kStart = 7, kEnd = 8, kAttributes = 9, kStatus = 15, kFlags = 16;
constexpr int kStatusMessage = 2, kStatusCode = 3;
constexpr int kKey = 1, kValue = 2;
constexpr int kString = 1, kBool = 2, kInt = 3, kDouble = 4, kArray = 5;
constexpr int kArrayValues = 1;
}  // namespace field

constexpr std::uint32_t kStatusCodeError = 2;
constexpr std::uint32_t kSampledFlag = 0x01;  // only sampled spans are exported

std::size_t VarintSize(std::uint64_t v) {
  std::size_t n = 1;
  for (; v >= 0x80; v >>= 7) ++n;
  return n;
}

std::size_t TagSize(int number) {
  return VarintSize(static_cast<std::uint64_t>(number) << 3);
}

// A length-delimited field holding `length` bytes, tag and length prefix included.
std::size_t LenFieldSize(int number, std::size_t length) {
  return TagSize(number) + VarintSize(length) + length;
}

// Writes into a buffer sized beforehand to exactly what is written: no growth checks.
class Out {
 public:
  explicit Out(char* at) : at_(at) {}
  void Byte(std::uint8_t b) { *at_++ = static_cast<char>(b); }
  void Append(std::string_view bytes) {
    if (!bytes.empty()) std::memcpy(at_, bytes.data(), bytes.size());
    at_ += bytes.size();
  }
  const char* at() const { return at_; }

 private:
  char* at_;
};

void PutVarint(Out& out, std::uint64_t v) {
  for (; v >= 0x80; v >>= 7) out.Byte(static_cast<std::uint8_t>((v & 0x7f) | 0x80));
  out.Byte(static_cast<std::uint8_t>(v));
}

void PutTag(Out& out, int number, WireType type) {
  PutVarint(out, (static_cast<std::uint64_t>(number) << 3) | type);
}

void PutLength(Out& out, int number, std::size_t length) {
  PutTag(out, number, kLen);
  PutVarint(out, length);
}

void PutBytes(Out& out, int number, std::string_view bytes) {
  PutLength(out, number, bytes.size());
  out.Append(bytes);
}

template <class Word>
void PutLittleEndian(Out& out, Word v) {
  for (std::size_t i = 0; i < sizeof(Word); ++i) out.Byte(static_cast<std::uint8_t>(v >> (8 * i)));
}

template <std::size_t N>
std::string_view View(const std::array<std::uint8_t, N>& id) {
  return {reinterpret_cast<const char*>(id.data()), N};
}

// AnyValue's body for each kind of attribute value.
std::size_t ArrayBodySize(const std::vector<std::string>& items) {
  std::size_t size = 0;
  for (const auto& item : items)
    size += LenFieldSize(field::kArrayValues, LenFieldSize(field::kString, item.size()));
  return size;
}

std::size_t AnyValueSize(const tracing::AttributeValue& value) {
  return std::visit(
      [](const auto& v) -> std::size_t {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) {
          return LenFieldSize(field::kString, v.size());
        } else if constexpr (std::is_same_v<T, bool>) {
          return TagSize(field::kBool) + 1;
        } else if constexpr (std::is_same_v<T, std::int64_t>) {
          return TagSize(field::kInt) + VarintSize(static_cast<std::uint64_t>(v));
        } else if constexpr (std::is_same_v<T, double>) {
          return TagSize(field::kDouble) + 8;
        } else {
          return LenFieldSize(field::kArray, ArrayBodySize(v));
        }
      },
      value);
}

void PutAnyValue(Out& out, const tracing::AttributeValue& value) {
  std::visit(
      [&out](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) {
          PutBytes(out, field::kString, v);
        } else if constexpr (std::is_same_v<T, bool>) {
          PutTag(out, field::kBool, kVarint);
          out.Byte(v ? 1 : 0);
        } else if constexpr (std::is_same_v<T, std::int64_t>) {
          PutTag(out, field::kInt, kVarint);
          PutVarint(out, static_cast<std::uint64_t>(v));  // int64: two's complement, 10 bytes
        } else if constexpr (std::is_same_v<T, double>) {
          PutTag(out, field::kDouble, kFixed64);
          PutLittleEndian(out, std::bit_cast<std::uint64_t>(v));
        } else {
          PutLength(out, field::kArray, ArrayBodySize(v));
          for (const auto& item : v) {
            PutLength(out, field::kArrayValues, LenFieldSize(field::kString, item.size()));
            PutBytes(out, field::kString, item);
          }
        }
      },
      value);
}

std::size_t KeyValueSize(const tracing::Attribute& attribute) {
  return LenFieldSize(field::kKey, attribute.key.size()) +
         LenFieldSize(field::kValue, AnyValueSize(attribute.value));
}

// `value_size`: AnyValueSize(attribute.value), computed once by the caller's size pass.
void PutKeyValue(Out& out, int number, const tracing::Attribute& attribute,
                 std::size_t value_size) {
  PutLength(
      out, number,
      LenFieldSize(field::kKey, attribute.key.size()) + LenFieldSize(field::kValue, value_size));
  PutBytes(out, field::kKey, attribute.key);
  PutLength(out, field::kValue, value_size);
  PutAnyValue(out, attribute.value);
}

void PutKeyValue(Out& out, int number, const tracing::Attribute& attribute) {
  PutKeyValue(out, number, attribute, AnyValueSize(attribute.value));
}

std::uint32_t KindNumber(tracing::SpanKind kind) {
  switch (kind) {
    case tracing::SpanKind::kServer:
      return 2;
    case tracing::SpanKind::kClient:
      return 3;
    case tracing::SpanKind::kInternal:
      break;
  }
  return 1;
}

std::size_t StatusSize(const tracing::SpanRecord& span) {
  return (span.error_message.empty()
              ? 0
              : LenFieldSize(field::kStatusMessage, span.error_message.size())) +
         TagSize(field::kStatusCode) + 1;
}

}  // namespace

std::size_t AppendSpan(std::string& spans, const tracing::SpanRecord& span) {
  std::size_t size =
      LenFieldSize(field::kTraceId, 16) + LenFieldSize(field::kSpanId, 8) +
      (span.parent ? LenFieldSize(field::kParentSpanId, 8) : 0) +
      (span.trace_state.empty() ? 0 : LenFieldSize(field::kTraceState, span.trace_state.size())) +
      LenFieldSize(field::kName, span.name.size()) + TagSize(field::kKind) + 1 +
      2 * (TagSize(field::kStart) + 8) + TagSize(field::kFlags) + 4;
  // Each value's size once: the size pass and the writing both need it.
  boost::container::small_vector<std::size_t, 16> value_sizes;
  for (const auto& attribute : span.attributes) {
    const std::size_t value_size = AnyValueSize(attribute.value);
    value_sizes.push_back(value_size);
    size += LenFieldSize(field::kAttributes, LenFieldSize(field::kKey, attribute.key.size()) +
                                                 LenFieldSize(field::kValue, value_size));
  }
  if (span.error) size += LenFieldSize(field::kStatus, StatusSize(span));
  const std::size_t framed = LenFieldSize(field::kScopeSpansSpans, size);
  const std::size_t at = spans.size();
  spans.resize(at + framed);
  Out out(spans.data() + at);
  PutLength(out, field::kScopeSpansSpans, size);
  PutBytes(out, field::kTraceId, View(span.trace_id));
  PutBytes(out, field::kSpanId, View(span.span_id));
  if (!span.trace_state.empty()) PutBytes(out, field::kTraceState, span.trace_state);
  if (span.parent) PutBytes(out, field::kParentSpanId, View(*span.parent));
  PutBytes(out, field::kName, span.name);
  PutTag(out, field::kKind, kVarint);
  PutVarint(out, KindNumber(span.kind));
  PutTag(out, field::kStart, kFixed64);
  PutLittleEndian(out, static_cast<std::uint64_t>(span.start_unix_ns));
  PutTag(out, field::kEnd, kFixed64);
  PutLittleEndian(out, static_cast<std::uint64_t>(span.end_unix_ns));
  for (std::size_t i = 0; i < span.attributes.size(); ++i)
    PutKeyValue(out, field::kAttributes, span.attributes[i], value_sizes[i]);
  if (span.error) {
    PutLength(out, field::kStatus, StatusSize(span));
    if (!span.error_message.empty()) PutBytes(out, field::kStatusMessage, span.error_message);
    PutTag(out, field::kStatusCode, kVarint);
    PutVarint(out, kStatusCodeError);
  }
  PutTag(out, field::kFlags, kFixed32);
  PutLittleEndian(out, kSampledFlag);
  assert(out.at() == spans.data() + spans.size());
  return framed;
}

void EncodeRequest(std::string& out, const ExportScope& scope, std::string_view spans) {
  std::size_t resource = 0;
  for (const auto& attribute : scope.resource)
    resource += LenFieldSize(field::kResourceAttributes, KeyValueSize(attribute));
  // An empty string is left out, as protobuf leaves out a default.
  const auto optional_size = [](int number, const std::string& text) {
    return text.empty() ? 0 : LenFieldSize(number, text.size());
  };
  const std::size_t instrumentation = optional_size(field::kScopeName, scope.scope_name) +
                                      optional_size(field::kScopeVersion, scope.scope_version);
  const std::size_t scope_spans =
      LenFieldSize(field::kScopeSpansScope, instrumentation) + spans.size();
  const std::size_t resource_spans = LenFieldSize(field::kResourceSpansResource, resource) +
                                     LenFieldSize(field::kResourceSpansScopeSpans, scope_spans);
  out.resize(LenFieldSize(field::kRequestResourceSpans, resource_spans));
  Out at(out.data());
  PutLength(at, field::kRequestResourceSpans, resource_spans);
  PutLength(at, field::kResourceSpansResource, resource);
  for (const auto& attribute : scope.resource)
    PutKeyValue(at, field::kResourceAttributes, attribute);
  PutLength(at, field::kResourceSpansScopeSpans, scope_spans);
  PutLength(at, field::kScopeSpansScope, instrumentation);
  if (!scope.scope_name.empty()) PutBytes(at, field::kScopeName, scope.scope_name);
  if (!scope.scope_version.empty()) PutBytes(at, field::kScopeVersion, scope.scope_version);
  at.Append(spans);  // each already framed as a ScopeSpans field
  assert(at.at() == out.data() + out.size());
}

std::string EncodeTraces(const ExportScope& scope, const std::vector<tracing::SpanRecord>& spans) {
  std::string framed;
  for (const auto& span : spans) AppendSpan(framed, span);
  std::string request;
  EncodeRequest(request, scope, framed);
  return request;
}

}  // namespace agentgate::otlp
