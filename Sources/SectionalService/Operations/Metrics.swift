import HTTPServer
import Locking

/// Prometheus metrics (text exposition format 0.0.4): requests by route template, method and
/// status; latency histograms; store write latency; duplicate rows dropped. Per-list gauges
/// (rows, version, history size), open connections and streams, refusals by the connection and
/// stream limits, and the size of every bounded structure are read from the live state when
/// scraped, so growth can be located.
public final class Metrics: Sendable {
    /// Upper bounds of the latency buckets, in seconds.
    static let buckets: [Double] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

    /// What is counted of one route: its requests by method and status (a few pairs, searched
    /// in order), and their latency. One look-up of the route per request: counting by a key
    /// of route, method and status, and latency by route, hashed the route twice.
    struct RouteStatistics {
        var requests: [(method: String, status: Int, count: UInt64)] = []
        var latency = Histogram()

        /// Counts a request; times it too when its duration is known (`seconds` nil: not).
        mutating func record(method: String, status: Int, seconds: Double?) {
            if let seconds { latency.observe(seconds) }
            count(method: method, status: status, by: 1)
        }

        /// Adds `other`'s counts to these.
        mutating func add(_ other: RouteStatistics) {
            latency.add(other.latency)
            for (method, status, n) in other.requests { count(method: method, status: status, by: n) }
        }

        private mutating func count(method: String, status: Int, by n: UInt64) {
            for i in requests.indices where requests[i].status == status && requests[i].method == method {
                requests[i].count += n
                return
            }
            requests.append((method, status, n))
        }
    }

    struct Histogram {
        var counts = [UInt64](repeating: 0, count: Metrics.buckets.count)
        var count: UInt64 = 0
        var sum: Double = 0

        mutating func observe(_ seconds: Double) {
            if let index = Metrics.buckets.firstIndex(where: { seconds <= $0 }) { counts[index] += 1 }
            count += 1
            sum += seconds
        }

        /// Adds `other`'s observations to these.
        mutating func add(_ other: Histogram) {
            for i in counts.indices { counts[i] += other.counts[i] }
            count += other.count
            sum += other.sum
        }
    }

    private struct State {
        var storeWrites = Histogram()
        var partitionBuilds = Histogram()
        var duplicates: [String: UInt64] = [:]
        /// Materializations of a list's rows in another language, by language.
        var languageBuilds: [String: UInt64] = [:]
        /// Webhook deliveries sent, answered 2xx, and failed (any other answer, or none).
        var webhooksSent: UInt64 = 0
        var webhooksSucceeded: UInt64 = 0
        var webhooksFailed: UInt64 = 0
        /// Outbox rows pending, by webhook, as each webhook's worker last counted them.
        var webhooksPending: [String: Int] = [:]
    }

    private let state = Locked(State())
    /// Requests by route, counted by each thread in its own stripe (every request adds here).
    private let routes = Striped { [String: RouteStatistics]() }

    public init() {}

    /// Counts one finished request (route template, or `unmatched`).
    func record(_ request: CompletedRequest) {
        let route = request.route.isEmpty ? "unmatched" : request.route
        // Methods are counted by name; any other is counted as `other`, so made-up methods cannot
        // grow the label set, and one libmicrohttpd did not tell (it answered itself) as `unknown`.
        let method: String
        switch request.method {
        case nil: method = "unknown"
        case .other?: method = "other"
        case let known?: method = known.rawValue
        }
        routes.withLock { routes in
            // libmicrohttpd's own answer to a request line is counted, not timed: nothing tells
            // when its request began (its duration reads 0).
            routes[route, default: RouteStatistics()].record(method: method, status: request.status.code,
                                                            seconds: request.rejectedRequestLine ? nil : request.durationSeconds)
        }
    }

    /// Times one store commit.
    func recordStoreWrite(seconds: Double) {
        state.withLock { $0.storeWrites.observe(seconds) }
    }

    /// Times one build of a user's partition of a per-user list (storage read and build).
    func recordPartitionBuild(seconds: Double) {
        state.withLock { $0.partitionBuilds.observe(seconds) }
    }

    /// Counts one materialization of a list's (or partition's) rows in `language`.
    func recordLanguageBuild(language: String) {
        state.withLock { $0.languageBuilds[language, default: 0] += 1 }
    }

    /// Counts one webhook delivery sent.
    func recordWebhookSent() {
        state.withLock { $0.webhooksSent += 1 }
    }

    /// Counts one webhook delivery's outcome: answered 2xx, or not.
    func recordWebhookOutcome(succeeded: Bool) {
        state.withLock { state in
            if succeeded { state.webhooksSucceeded += 1 } else { state.webhooksFailed += 1 }
        }
    }

    /// One webhook's pending rows in the outbox, as its worker last counted them.
    func setWebhooksPending(_ count: Int, webhook: String) {
        state.withLock { $0.webhooksPending[webhook] = count }
    }

    /// Adds rows dropped as duplicates in a list.
    func recordDuplicates(list: String, count: Int) {
        guard count > 0 else { return }
        state.withLock { $0.duplicates[list, default: 0] += UInt64(count) }
    }

    /// The exposition text. `lists` gives each list's name, rows and version; `connections` the
    /// server's connection counts; `streams` the open event streams and those refused; `views`
    /// the views held and evicted; `answerCache` the current snapshots' cached answers;
    /// `histories` each list's `changes` history; `refusedWrites` the writes refused for a store
    /// failure, by cause; `writer` the history versions waiting to be
    /// freed and the writes waiting for the writer thread; `resident` the partitions, other
    /// languages and search results held under `scopes.maxResidentRows`, by kind;
    /// `searchCorpora` the records of each list's search corpus, once made.
    func render(lists: [(name: String, rows: Int, version: Int64)], connections: ConnectionStatistics,
                streams: (open: Int, refused: UInt64), views: (count: Int, evicted: UInt64),
                answerCache: (entries: Int, bytes: Int), histories: [(list: String, versions: Int, rows: Int)],
                refusedWrites: [(cause: String, count: UInt64)],
                writer: (pendingFrees: Int, queuedWrites: Int),
                resident: [(kind: ResidentKind, counts: ResidentCounts)] = ResidentKind.allCases.map { ($0, ResidentCounts()) },
                searchCorpora: [(list: String, records: Int)] = [], readsWaiting: Int = 0) -> String {
        let snapshot = state.withLock { $0 }
        var totals: [String: RouteStatistics] = [:]
        self.routes.forEach { stripe in
            for (route, statistics) in stripe { totals[route, default: RouteStatistics()].add(statistics) }
        }
        var out = ""
        out += "# HELP sectional_http_requests_total HTTP requests answered, by route template, method and status.\n"
        out += "# TYPE sectional_http_requests_total counter\n"
        let routes = totals.sorted { $0.key < $1.key }
        for (route, statistics) in routes {
            for (method, status, count) in statistics.requests.sorted(by: { ($0.method, $0.status) < ($1.method, $1.status) }) {
                out += "sectional_http_requests_total{route=\(label(route)),method=\(label(method)),status=\"\(status)\"} \(count)\n"
            }
        }
        out += "# HELP sectional_http_request_duration_seconds Time from request line to answer sent, by route template.\n"
        out += "# TYPE sectional_http_request_duration_seconds histogram\n"
        for (route, statistics) in routes {
            out += histogramLines("sectional_http_request_duration_seconds", "route=\(label(route))", statistics.latency)
        }
        out += "# HELP sectional_store_write_seconds Time to commit a write durably.\n"
        out += "# TYPE sectional_store_write_seconds histogram\n"
        out += histogramLines("sectional_store_write_seconds", nil, snapshot.storeWrites)
        out += "# HELP sectional_partition_build_seconds Time to build a user's partition of a per-user list on its first read.\n"
        out += "# TYPE sectional_partition_build_seconds histogram\n"
        out += histogramLines("sectional_partition_build_seconds", nil, snapshot.partitionBuilds)
        out += family("sectional_language_materializations_total", "counter",
                      "Lists' (or partitions') rows built in a language other than the list's first, on first read after start or eviction.",
                      snapshot.languageBuilds.sorted { $0.key < $1.key }.map { ("language=\(label($0.key))", "\($0.value)") })
        // Named for partitions, the first kind; the `kind` label tells them apart (sum over it for the budget's use).
        out += family("sectional_partitions_resident", "gauge",
                      "Materializations held in memory under scopes.maxResidentRows, by kind: users' partitions of per-user lists (partition), rows in a language other than the list's first (language), search and filter results (search).",
                      resident.map { ("kind=\(label($0.kind.label))", "\($0.counts.entries)") })
        out += family("sectional_partition_rows_resident", "gauge",
                      "Rows of those materializations, by kind. With 12 more per entry, their sum is brought within scopes.maxResidentRows when one is built; writes can take it past until the next build, and one entry larger than the budget is kept alone.",
                      resident.map { ("kind=\(label($0.kind.label))", "\($0.counts.rows)") })
        out += family("sectional_partition_evictions_total", "counter",
                      "Materializations evicted, by kind, least recently read first: to stay within scopes.maxResidentRows, or past 64 search results of one list.",
                      resident.map { ("kind=\(label($0.kind.label))", "\($0.counts.evictions)") })
        out += family("sectional_list_rows", "gauge", "Rows in a list, hidden ones included.",
                      lists.map { ("list=\(label($0.name))", "\($0.rows)") })
        out += family("sectional_list_version", "gauge", "Current version of a list.",
                      lists.map { ("list=\(label($0.name))", "\($0.version)") })
        out += family("sectional_duplicate_rows_total", "counter", "Rows dropped because another section spec claimed their id first.",
                      lists.map { ("list=\(label($0.name))", "\(snapshot.duplicates[$0.name] ?? 0)") })
        out += family("sectional_connections", "gauge", "Open HTTP connections.", [(nil, "\(connections.open)")])
        out += family("sectional_connections_refused_total", "counter", "Connections closed on arrival, by the limit they hit.",
                      [("limit=\"connectionLimit\"", "\(connections.refusedAtLimit)"),
                       ("limit=\"perClientConnectionLimit\"", "\(connections.refusedPerClient)")])
        out += family("sectional_connections_closed_too_slow_total", "counter",
                      "Connections closed because a request's head (within 2x connectionTimeoutSeconds) or whole request (10x) came too slowly.",
                      [(nil, "\(connections.closedTooSlow)")])
        out += family("sectional_event_streams", "gauge", "Open Server-Sent Event streams.", [(nil, "\(streams.open)")])
        out += family("sectional_event_streams_refused_total", "counter",
                      "Event streams refused because maxEventStreams were open.", [(nil, "\(streams.refused)")])
        out += family("sectional_views", "gauge", "Views held (in memory and in the store).", [(nil, "\(views.count)")])
        out += family("sectional_views_evicted_total", "counter",
                      "Least recently used views evicted to stay within views.maxViews.", [(nil, "\(views.evicted)")])
        out += family("sectional_answer_cache_entries", "gauge", "Rendered answers cached for the lists' current versions, in every language, and for resident partitions and search results.",
                      [(nil, "\(answerCache.entries)")])
        out += family("sectional_answer_cache_bytes", "gauge", "Bytes those cached answers count for (bodies, gzip forms, kept responses, overhead).", [(nil, "\(answerCache.bytes)")])
        out += family("sectional_search_corpus_records", "gauge",
                      "Records in a list's search corpus; a list appears once its corpus is made (in the background after start or a definition change).",
                      searchCorpora.map { ("list=\(label($0.list))", "\($0.records)") })
        out += family("sectional_history_versions", "gauge", "Versions of a list kept to answer changes.",
                      histories.map { ("list=\(label($0.list))", "\($0.versions)") })
        out += family("sectional_history_rows", "gauge", "Written row ids kept in a list's history.",
                      histories.map { ("list=\(label($0.list))", "\($0.rows)") })
        out += family("sectional_pending_frees", "gauge", "History versions dropped and not yet freed (freed off the writer's path).",
                      [(nil, "\(writer.pendingFrees)")])
        out += family("sectional_writes_refused_total", "counter",
                      "Writes refused because the store failed, by cause: 503 storage-unavailable for a passing fault, 500 for cause=\"internal\".",
                      refusedWrites.map { ("cause=\(label($0.cause))", "\($0.count)") })
        out += family("sectional_queued_writes", "gauge", "Writes waiting for the writer thread.", [(nil, "\(writer.queuedWrites)")])
        out += family("sectional_reads_waiting_for_version", "gauge",
                      "Reads (and view writes) asking for a version (minVersion) this instance has not applied yet, parked for up to a second.",
                      [(nil, "\(readsWaiting)")])
        out += family("sectional_webhook_deliveries_sent_total", "counter", "Webhook deliveries sent (each attempt counts).",
                      [(nil, "\(snapshot.webhooksSent)")])
        out += family("sectional_webhook_deliveries_succeeded_total", "counter", "Webhook deliveries the receiver answered with 2xx.",
                      [(nil, "\(snapshot.webhooksSucceeded)")])
        out += family("sectional_webhook_deliveries_failed_total", "counter",
                      "Webhook deliveries that failed (another status, no answer, a timeout): retried with backoff.",
                      [(nil, "\(snapshot.webhooksFailed)")])
        out += family("sectional_webhook_outbox_pending", "gauge", "Webhook deliveries waiting in the store's outbox (coalesced per list and user).",
                      [(nil, "\(snapshot.webhooksPending.values.reduce(0, +))")])
        return out
    }

    /// One metric family: its HELP and TYPE lines, then a sample per (labels, value).
    private func family(_ name: String, _ type: String, _ help: String, _ samples: [(labels: String?, value: String)]) -> String {
        var out = "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
        for sample in samples { out += "\(name)\(sample.labels.map { "{\($0)}" } ?? "") \(sample.value)\n" }
        return out
    }

    private func histogramLines(_ name: String, _ labels: String?, _ histogram: Histogram) -> String {
        var out = ""
        var cumulative: UInt64 = 0
        let prefix = labels.map { "\($0)," } ?? ""
        for (bound, count) in zip(Self.buckets, histogram.counts) {
            cumulative += count
            out += "\(name)_bucket{\(prefix)le=\"\(bound)\"} \(cumulative)\n"
        }
        out += "\(name)_bucket{\(prefix)le=\"+Inf\"} \(histogram.count)\n"
        let suffix = labels.map { "{\($0)}" } ?? ""
        out += "\(name)_sum\(suffix) \(histogram.sum)\n"
        out += "\(name)_count\(suffix) \(histogram.count)\n"
        return out
    }

    /// A label value, quoted and escaped.
    private func label(_ value: String) -> String {
        "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n") + "\""
    }
}
