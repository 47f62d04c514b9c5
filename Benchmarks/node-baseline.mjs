// Baseline (b): the backend a team would write by hand. node:http, the same people in memory,
// grouped and sorted like the demo's `contacts`, and every answer built per request with
// JSON.stringify. No npm packages. Usage: node node-baseline.mjs PORT PEOPLE.json
import http from "node:http";
import fs from "node:fs";

const [port, file] = process.argv.slice(2);
const people = JSON.parse(fs.readFileSync(file, "utf8"));
const first = ["Engineering", "Design"];
const hiddenByDefault = new Set(["Archived"]);
const currency = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" });

// Sections by team: explicit keys first, the rest ascending; rows by name, then id.
const groups = new Map();
for (const p of people) {
  if (!groups.has(p.team)) groups.set(p.team, []);
  groups.get(p.team).push(p);
}
const keys = [...groups.keys()].sort((a, b) => {
  const ia = first.indexOf(a), ib = first.indexOf(b);
  if (ia >= 0 || ib >= 0) return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib);
  return a < b ? -1 : a > b ? 1 : 0;
});
const sections = keys.map((key) => ({
  key,
  records: groups.get(key).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : 1)),
}));
let tag = 0;
const byId = new Map();
const byTag = [];
sections.forEach((s, si) => {
  s.firstTag = tag;
  s.records.forEach((p, ri) => {
    const length = p.kind === "bot" ? 1 : 2;
    p.tag = { location: tag, length };
    byId.set(p.id, [si, ri]);
    for (let i = 0; i < length; i++) byTag.push([si, ri]);
    tag += length;
  });
});

const row = (p, si, ri) => {
  const bot = p.kind === "bot";
  const r = { id: p.id, type: bot ? "bot" : "person", indexPath: { section: si, row: ri }, tag: p.tag,
    title: bot ? `${p.name} (bot)` : p.name, subtitle: `${p.title} · ${p.email}` };
  if (!bot) r.detail = currency.format(p.salary);
  r.icon = p.avatar; r.badge = String(p.unread); r.height = bot ? 44 : 56;
  r.accessibilityIdentifier = `contact_cell_${si}_${ri}`; r.action = `app://people/${p.id}`;
  return r;
};
const section = (s, si) => {
  const hidden = hiddenByDefault.has(s.key);
  return { index: si, key: s.key, type: "team", title: `${s.key} (${s.records.length})`, icon: "person.3",
    header: null, footer: null, insets: { top: 0, left: 0, bottom: 0, right: 0 }, lineSpacing: 0, hidden,
    rowCount: hidden ? 0 : s.records.length, totalRowCount: s.records.length, firstTag: s.firstTag };
};
const send = (res, status, value) => {
  const body = JSON.stringify(value);
  res.writeHead(status, { "Content-Type": "application/json; charset=utf-8", "Content-Length": Buffer.byteLength(body) });
  res.end(body);
};

http.createServer((req, res) => {
  const url = new URL(req.url, "http://x");
  const parts = url.pathname.split("/").filter(Boolean);
  if (url.pathname === "/outline") {
    return send(res, 200, { list: "contacts", version: 1, sections: sections.map(section) });
  }
  if (url.pathname === "/page") {
    const size = Number(url.searchParams.get("pageSize") || 50);
    const out = [];
    let left = size;
    for (let si = 0; si < sections.length && left > 0; si++) {
      const s = sections[si], info = section(s, si);
      if (info.hidden) { out.push({ ...info, rowOffset: 0, rows: [] }); continue; }
      const rows = s.records.slice(0, left).map((p, ri) => row(p, si, ri));
      left -= rows.length;
      out.push({ ...info, rowOffset: 0, rows });
    }
    return send(res, 200, { list: "contacts", version: 1, sections: out, nextPageToken: "x", itemsBefore: 0, itemsAfter: people.length - size });
  }
  if (parts[0] === "sections") {
    const si = Number(parts[1]), s = sections[si];
    const start = Number(url.searchParams.get("start") || 0), count = Number(url.searchParams.get("count") || 50);
    if (!s) return send(res, 404, { type: "/problems/section-not-found" });
    return send(res, 200, { list: "contacts", version: 1, section: { ...section(s, si), rows: s.records.slice(start, start + count).map((p, i) => row(p, si, start + i)) } });
  }
  if (parts[0] === "tags" || parts[0] === "rows") {
    const at = parts[0] === "tags" ? byTag[Number(parts[1])] : byId.get(parts[1]);
    if (!at) return send(res, 404, { type: "/problems/not-found" });
    const [si, ri] = at;
    return send(res, 200, { list: "contacts", version: 1, indexPath: { section: si, row: ri }, hidden: hiddenByDefault.has(sections[si].key), row: row(sections[si].records[ri], si, ri) });
  }
  send(res, 404, { type: "/problems/not-found" });
}).listen(Number(port), "127.0.0.1");
