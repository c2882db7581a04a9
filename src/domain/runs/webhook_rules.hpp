#pragma once
// What a webhook may be and when its deliveries are retried (docs/webhooks.md). Pure: the admin
// API checks endpoints with it, the HTTP client checks the addresses it connects to, the sender
// schedules retries.

#include "domain/error.hpp"

#include <boost/json/fwd.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentgate::webhooks {

// The run ends a webhook may ask for; all of them when it names none.
inline constexpr std::array<std::string_view, 4> kRunEndEvents = {
    "run.completed", "run.failed", "run.canceled",
    "run.requires_action"};  // a pause for approval (docs/daemon.md), not an end

// Whether `ip` (a numeric IPv4 or IPv6 address) is public: not loopback, private (RFC 1918,
// fc00::/7, site-local fec0::/10), link-local, carrier-grade NAT, unspecified, multicast or
// reserved. An IPv6 form that carries an IPv4 address (mapped ::ffff:a.b.c.d, compatible
// ::a.b.c.d, 6to4 2002::/16, NAT64 64:ff9b::/96) is judged by the address it carries; local-use
// NAT64 (64:ff9b:1::/48) is private. Not an address: false. A webhook's URL is checked with it,
// and so is each address its host resolves to when a delivery connects (adapters/http_client).
bool IsPublicAddress(std::string_view ip);

// An endpoint's URL: absolute http(s), no user info, at most 2,048 characters; https, and not a
// literal non-public address or `localhost`, unless `allow_private` ([webhooks] allow_private).
// Errors name field `url`. A host name's addresses are checked again on every delivery.
Result<void> CheckUrl(std::string_view url, bool allow_private);

// The `events` of a registration: absent or null for every run end, else a non-empty array of
// distinct names from kRunEndEvents. Errors name field `events`.
Result<std::vector<std::string>> ParseEvents(const boost::json::value* events);

// How long after its `attempts`-th failed attempt a delivery is tried again: with the default
// first retry of 5 s, 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h (each the first times 1, 6,
// 24, 120, 360, 720, 1440, 2880); nullopt once those are spent (9 attempts over about 7 h 43 min),
// when the delivery ends failed.
std::optional<std::int64_t> RetryDelayMs(int attempts, std::int64_t first_retry_ms = 5000);

}  // namespace agentgate::webhooks
