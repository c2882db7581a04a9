// The overview page (#/overview): spend per org, turns and gateway calls per day (uPlot).
import uPlot from "./uPlot.esm.js";
import { api, h, money, show, table } from "./ui.js";

const DAY_SECONDS = 24 * 60 * 60;
const REASON_COLORS = { complete: "#15803d", max_iterations: "#b45309", loop_detected: "#7c3aed",
  llm_error: "#b91c1c", provider_error: "#be185d", turn_timeout: "#1d4ed8", spend_limit_reached: "#0e7490" };
const OTHER_COLORS = ["#0f766e", "#a16207", "#4338ca", "#9f1239", "#475569"];

function statusColor(status, index) {
  if (status < 300) return ["#15803d", "#22c55e"][index % 2];
  if (status < 500) return ["#b45309", "#d97706", "#92400e"][index % 3];
  return ["#b91c1c", "#dc2626", "#7f1d1d"][index % 3];
}

// Rows of {day, <key>, <count>} as one series per key over `days` (epoch seconds).
function seriesOf(rows, key, count, days) {
  const index = new Map(days.map((d, i) => [new Date(d * 1000).toISOString().slice(0, 10), i]));
  const byKey = new Map();
  for (const row of rows) {
    const k = String(row[key]);
    if (!byKey.has(k)) byKey.set(k, days.map(() => 0));
    const i = index.get(row.day);
    if (i !== undefined) byKey.get(k)[i] += row[count];
  }
  return [...byKey.entries()].sort(([a], [b]) => (a === "complete" ? -1 : b === "complete" ? 1 : a < b ? -1 : 1))
    .map(([label, values]) => ({ label, values }));
}

// Stacked bars: each series is drawn at its running total, the tallest first, so every bar shows
// its parts; the legend shows each part's own count.
function stackedBars(container, days, series, colorOf) {
  const running = days.map(() => 0);
  const stacked = series.map((s) => ({ ...s, top: s.values.map((v, i) => (running[i] += v)) }));
  const drawn = stacked.slice().reverse();
  const bars = uPlot.paths.bars({ size: [0.7, 48] });
  const chart = new uPlot({
    width: Math.max(280, container.clientWidth - 8),
    height: 240,
    scales: { x: { time: true, range: () => [days[0] - DAY_SECONDS / 2, days[days.length - 1] + DAY_SECONDS / 2] } },
    axes: [{}, { label: "per day" }],
    series: [{ value: (u, v) => (v === null ? "" : new Date(v * 1000).toISOString().slice(0, 10)) },
      ...drawn.map((s) => {
        const color = colorOf(s.label, series.indexOf(series.find((x) => x.label === s.label)));
        return { label: s.label, stroke: color, fill: color, width: 0, paths: bars, points: { show: false },
          value: (u, v, seriesIndex, i) => (i === null || i === undefined ? "" : String(s.values[i])) };
      })],
  }, [days, ...drawn.map((s) => s.top)], container);
  window.addEventListener("resize", () => chart.setSize({ width: Math.max(280, container.clientWidth - 8), height: 240 }));
  return chart;
}

export async function showOverview() {
  const o = await api("GET", "/admin/v1/overview?days=30");
  const first = Date.parse(o.since + "T00:00:00Z") / 1000;
  const days = Array.from({ length: o.days }, (_, i) => first + i * DAY_SECONDS);

  const spend = o.orgs.length
    ? table("spend-list", ["Organization", "Spent", "Limit", "Used"], o.orgs, (org) => {
      const limit = org.monthly_spend_limit_usd;
      return [h("a", { href: "#/orgs/" + encodeURIComponent(org.id) }, org.name),
        h("td", { class: "org-spent" }, money(org.spent_usd)),
        money(limit),
        limit
          ? h("meter", { min: "0", max: String(limit), value: String(Math.min(org.spent_usd, limit)),
            high: String(limit * 0.8), optimum: "0", title: Math.round(100 * org.spent_usd / limit) + "% of the limit" })
          : h("span", { class: "muted" }, "no limit")];
    })
    : h("p", { class: "muted" }, "No organizations yet — create one under Organizations.");

  const turnSeries = seriesOf(o.turns_per_day, "stop_reason", "turns", days);
  const gatewaySeries = seriesOf(o.gateway_calls_per_day, "status", "calls", days);
  const turnsBox = h("div", { id: "turns-chart", class: "chart" });
  const gatewayBox = h("div", { id: "gateway-chart", class: "chart" });
  const d = o.turn_duration_ms;
  show(
    h("h1", {}, "Overview"),
    h("section", { class: "card", "aria-labelledby": "spend-title" },
      h("h2", { id: "spend-title" }, "Spend in " + o.month), spend),
    h("section", { class: "card", "aria-labelledby": "turns-title" },
      h("h2", { id: "turns-title" }, "Turns per day by stop reason (last " + o.days + " days)"),
      turnSeries.length ? turnsBox
        : h("p", { class: "muted" }, "No turns yet — invoke an agent (README, Try it) and they appear here."),
      h("p", { id: "durations" }, d.turns
        ? "Turn duration over " + d.turns + " turns: p50 " + d.p50 + " ms, p95 " + d.p95 + " ms."
        : "No turn durations yet.")),
    h("section", { class: "card", "aria-labelledby": "gateway-title" },
      h("h2", { id: "gateway-title" }, "Gateway calls per day by status"),
      gatewaySeries.length ? gatewayBox
        : h("p", { class: "muted" }, "No gateway calls yet — see docs/gateway.md to forward your first.")));
  if (turnSeries.length) stackedBars(turnsBox, days, turnSeries, (label, i) => REASON_COLORS[label] || OTHER_COLORS[i % OTHER_COLORS.length]);
  if (gatewaySeries.length) stackedBars(gatewayBox, days, gatewaySeries, (label, i) => statusColor(Number(label), i));
}
