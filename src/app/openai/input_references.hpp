#pragma once
// The stored messages a Responses API input names to be read into its history (ItemToResolve):
// a conversation's item (msg_<hex>_<seq>), or a stateless call's reference to a response's reply
// (msg_<hex>). Read from the store, so a reference made on one server reads on another.

#include "app/access/authenticate.hpp"
#include "app/access/tenant_directory.hpp"
#include "domain/openai/response_request.hpp"
#include "runtime/store_runner.hpp"

#include <boost/asio/awaitable.hpp>

namespace agentgate {

// Each reference's text in its place in `asked.request.history`. One the caller may not read
// (none, another organization's or environment's, an agent it has no chat grant on) is a 400
// naming it.
boost::asio::awaitable<Result<void>> ReadReferences(StoreRunner& store, TenantDirectory& tenants,
                                                    const Caller& caller, ResponseRequest& asked);

}  // namespace agentgate
