#include "runtime/spend_ledger.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <optional>

namespace agentgate {
namespace {

namespace asio = boost::asio;

// Money is a double: a part fits when it does up to a rounding error far below a cent.
constexpr double kRounding = 1e-12;

std::string KeyOf(const SpendReservationRequest& r) {
  return r.org_id + "\n" + r.agent_id + "\n" + r.month;
}

SpendDecision Granted(const SpendPart& part) {
  return SpendDecision{true, part.reservation_id, "", 0, 0, part.amount_usd};
}

}  // namespace

struct SpendLedger::Lease {
  std::string id;
  std::string key;
  std::string org_id;
  std::optional<double> agent_limit_usd;  // the limit it was granted under
  double calls = 0;                       // how many calls it was sized for
  double per_call = 0;                    // the worst case of the call it was sized by
  int calls_served = 0;
  double granted = 0;  // what its reservation in the store holds
  double held = 0;     // set aside for calls not yet settled or released
  int calls_held = 0;
  Steady::time_point taken;
  Steady::time_point last_used;
  bool retired = false;
};

asio::awaitable<Result<SpendDecision>> SpendLedger::Reserve(const SpendReservationRequest& call) {
  const std::string key = KeyOf(call);
  Taken first = TakeFromLease(key, call);
  if (first.part) co_return Granted(*first.part);
  const auto turn = co_await leasing_.Acquire(key);
  if (!turn) {
    Send(std::move(first.give_back_first));
    co_return Error(ErrorCode::kCanceled, "canceled while waiting for a spend lease");
  }
  if (!first.give_back_first.empty()) co_await SendNow(std::move(first.give_back_first));
  // The turn that held the key may have brought a lease this call fits in.
  Taken second = TakeFromLease(key, call);
  if (second.part) co_return Granted(*second.part);
  if (!second.give_back_first.empty()) co_await SendNow(std::move(second.give_back_first));
  const double calls = std::max(first.next_calls, second.next_calls);
  SpendReservationRequest request = call;
  request.wanted_usd = call.amount_usd * calls;
  if (server_ != nullptr) request.server_id = server_->id();
  AG_CO_TRY(const auto lease,
            co_await store_.Run([&](Store& s) { return s.ReserveSpend(request); }));
  if (!lease.reserved) co_return lease;
  co_return Granted(Install(key, request, lease, calls));
}

bool SpendLedger::LeaseHasRoom(const SpendReservationRequest& request) const {
  std::lock_guard lock(mutex_);
  const auto it = current_.find(KeyOf(request));
  if (it == current_.end()) return false;
  const Lease& lease = *it->second;
  // A lease for free calls (a model with no price) holds nothing, yet serves every call like its
  // own: the store granted it, so no limit was reached then.
  const bool free_calls = lease.per_call <= kRounding;
  return lease.agent_limit_usd == request.agent_limit_usd && !Expired(lease, options_.clock()) &&
         (lease.granted - lease.held > kRounding || free_calls);
}

SpendLedger::Taken SpendLedger::TakeFromLease(const std::string& key,
                                              const SpendReservationRequest& request) {
  std::vector<GiveBack> work;
  Taken taken{std::nullopt, options_.calls_per_lease};
  {
    std::lock_guard lock(mutex_);
    auto it = current_.find(key);
    if (it == current_.end()) return taken;
    Lease& lease = *it->second;
    const auto now = options_.clock();
    if (lease.agent_limit_usd != request.agent_limit_usd) {
      Retire(lease, work);
    } else if (Expired(lease, now)) {
      taken.next_calls = NextLeaseCalls(lease, now);
      Retire(lease, work);
    } else if (lease.granted - lease.held + kRounding >= request.amount_usd) {
      lease.held += request.amount_usd;
      ++lease.calls_held;
      ++lease.calls_served;
      lease.last_used = now;
      taken.part = SpendPart{lease.id, request.amount_usd};
    } else {
      taken.next_calls = NextLeaseCalls(lease, now);
      if (request.amount_usd > lease.per_call + kRounding) {
        Retire(lease, taken.give_back_first);
        return taken;
      }
    }
  }
  Send(std::move(work));
  return taken;
}

double SpendLedger::NextLeaseCalls(const Lease& lease, Steady::time_point now) const {
  double calls = options_.calls_per_lease;
  if (Expired(lease, now))
    calls = 2.0 * lease.calls_served;  // what it served in its life, with room to grow
  else if (now - lease.taken < options_.lease_life / 2)
    calls = 2.0 * lease.calls;  // ran out early: demand outgrew it
  else
    calls = lease.calls;
  return std::clamp(calls, options_.calls_per_lease,
                    std::max(options_.calls_per_lease, options_.max_calls_per_lease));
}

SpendPart SpendLedger::Install(const std::string& key, const SpendReservationRequest& request,
                               const SpendDecision& granted, double calls) {
  auto lease = std::make_shared<Lease>();
  lease->id = granted.reservation_id;
  lease->key = key;
  lease->org_id = request.org_id;
  lease->agent_limit_usd = request.agent_limit_usd;
  lease->calls = calls;
  lease->per_call = request.amount_usd;
  lease->calls_served = 1;
  lease->granted = granted.amount_usd;
  lease->held = request.amount_usd;
  lease->calls_held = 1;
  lease->taken = lease->last_used = options_.clock();
  std::vector<GiveBack> work;
  {
    std::lock_guard lock(mutex_);
    // The lease this call did not fit in is retired: the new one serves from now.
    if (auto it = current_.find(key); it != current_.end()) Retire(*it->second, work);
    current_[key] = lease;
    leases_[lease->id] = lease;
  }
  Send(std::move(work));
  return SpendPart{lease->id, request.amount_usd};
}

void SpendLedger::Retire(Lease& lease, std::vector<GiveBack>& out) {
  lease.retired = true;
  if (auto it = current_.find(lease.key); it != current_.end() && it->second.get() == &lease)
    current_.erase(it);
  if (lease.calls_held == 0) {
    const std::string id = lease.id;
    out.push_back(GiveBack{id, 0, true});
    leases_.erase(id);  // `lease` is gone past this line
    return;
  }
  const double unused = lease.granted - lease.held;
  lease.granted = lease.held;
  if (unused > kRounding) out.push_back(GiveBack{lease.id, unused, false});
}

void SpendLedger::Release(const SpendPart& part) {
  PartDone(part, false);
}

void SpendLedger::Settled(const SpendPart& part) {
  PartDone(part, true);
}

void SpendLedger::PartDone(const SpendPart& part, bool settled) {
  std::vector<GiveBack> work;
  {
    std::lock_guard lock(mutex_);
    auto it = leases_.find(part.reservation_id);
    if (it == leases_.end()) return;
    Lease& lease = *it->second;
    lease.held -= part.amount_usd;
    --lease.calls_held;
    if (settled) lease.granted -= part.amount_usd;
    if (lease.retired && lease.calls_held == 0) {
      work.push_back(GiveBack{lease.id, 0, true});
      leases_.erase(it);
    }
  }
  Send(std::move(work));
}

void SpendLedger::ForgetOrg(const std::string& org_id) {
  RetireIf([&](const Lease& lease, Steady::time_point) { return lease.org_id == org_id; });
}

void SpendLedger::RetireStale() {
  RetireIf([&](const Lease& lease, Steady::time_point now) {
    return Expired(lease, now) || now - lease.last_used >= options_.idle_return;
  });
}

void SpendLedger::RetireAll() {
  RetireIf([](const Lease&, Steady::time_point) { return true; });
}

template <class Predicate>
void SpendLedger::RetireIf(const Predicate& retire) {
  std::vector<GiveBack> work;
  {
    std::lock_guard lock(mutex_);
    const auto now = options_.clock();
    std::vector<Lease*> chosen;  // first chosen, then retired: retiring changes current_
    for (auto& [key, lease] : current_)
      if (retire(*lease, now)) chosen.push_back(lease.get());
    for (Lease* lease : chosen) Retire(*lease, work);
  }
  Send(std::move(work));
}

bool SpendLedger::Expired(const Lease& lease, Steady::time_point now) const {
  return now - lease.taken >= options_.lease_life;
}

std::size_t SpendLedger::LeasesHeld() const {
  std::lock_guard lock(mutex_);
  return leases_.size();
}

void SpendLedger::Send(std::vector<GiveBack> work) {
  // Posted, not awaited: callers include turns unwinding from a cancellation.
  for (auto& give : work) {
    if (give.close && server_ != nullptr) {
      server_->Post(
          [id = std::move(give.reservation_id)](Store& s) { return s.ReleaseSpend({id}); });
    } else if (give.close) {
      store_.Post([id = std::move(give.reservation_id)](Store& s) { (void)s.ReleaseSpend({id}); });
    } else {
      // Not retried: giving back a part twice would free budget a call still holds. The lease's
      // close releases whatever is left.
      store_.Post([give = std::move(give)](Store& s) {
        (void)s.ReturnSpend(give.reservation_id, give.amount_usd);
      });
    }
  }
}

asio::awaitable<void> SpendLedger::SendNow(std::vector<GiveBack> work) {
  for (std::size_t i = 0; i < work.size(); ++i) {
    const GiveBack* give = &work[i];
    auto done = co_await store_.Run([give](Store& s) {
      return give->close ? s.ReleaseSpend({give->reservation_id})
                         : s.ReturnSpend(give->reservation_id, give->amount_usd);
    });
    // Not given back now: the usual way, which retries a close; the new lease is then checked
    // with this part still counted, which only errs on the safe side.
    if (!done) Send({work[i]});
  }
}

asio::awaitable<void> RunSpendLeaseReturns(SpendLedger& ledger, std::chrono::milliseconds every) {
  asio::steady_timer timer(co_await asio::this_coro::executor);
  for (;;) {
    timer.expires_after(every);
    auto [ec] = co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
    if (ec) co_return;
    ledger.RetireStale();
  }
}

}  // namespace agentgate
