#pragma once
// gzip (RFC 1952) by zlib, for export bodies (a collector takes Content-Encoding: gzip).

#include <string>
#include <string_view>

namespace agentgate::otlp {

std::string Gzip(std::string_view data);
std::string Gunzip(std::string_view data);  // for tests; empty on a bad stream

}  // namespace agentgate::otlp
