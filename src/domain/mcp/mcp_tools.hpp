#pragma once
// An MCP server's tools as an agent uses them: the tools/list result read and checked, the names
// the model sees ("<server>__<tool>"), the Mcp-Name and Mcp-Param-* headers of a tools/call, and
// a tools/call result turned into what the model reads.

#include "domain/error.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentgate::mcp {

// A parameter the server wants mirrored into an Mcp-Param-<header> header (x-mcp-header).
struct HeaderParam {
  std::vector<std::string> path;  // property names from the schema root
  std::string header;
};

struct McpTool {
  std::string name;  // as the server names it
  std::string description;
  boost::json::value input_schema;
  std::vector<HeaderParam> header_params;
  // Its annotations' hints (MCP tools/list), read by the approval rules; absent means false.
  bool read_only_hint = false;
  bool destructive_hint = false;
};

struct ToolPage {
  std::vector<McpTool> tools;
  std::vector<std::string> rejected;  // "<tool>: why", tools left out
  std::optional<std::string> next_cursor;
  std::optional<std::int64_t> ttl_ms;  // the server's cache hint
};

// Reads a tools/list result. Tools with an invalid x-mcp-header annotation are left out (the
// transport requires it) and named in `rejected`.
Result<ToolPage> ParseToolList(const boost::json::value& result);

// "<server>__<tool>" with every character a provider refuses in a tool name replaced by '_';
// nullopt when that is longer than the 64 characters providers accept.
std::optional<std::string> ModelToolName(std::string_view server, std::string_view tool);

// A header value as the transport writes it: as is when it is plain visible ASCII, otherwise
// (or when it looks like the sentinel) "=?base64?<base64 of the UTF-8>?=".
std::string EncodedHeaderValue(std::string_view value);

// The Mcp-Param-* headers for a call of `tool` with `arguments` (absent and null values omitted).
std::vector<std::pair<std::string, std::string>> ParamHeaders(const McpTool& tool,
                                                              const boost::json::object& arguments);

// What the model reads of a tools/call result: text content as is, structured content as compact
// JSON, images, audio and binary resources summarised (never forwarded); "error: " first when the
// server set isError. At most `max_chars` characters.
std::string RenderCallResult(const boost::json::value& result, std::size_t max_chars);

}  // namespace agentgate::mcp
