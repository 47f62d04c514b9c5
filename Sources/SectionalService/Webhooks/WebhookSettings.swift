import ListModel

/// One entry of the config's `webhooks` array: where deliveries go, which lists they follow,
/// and the environment variable holding the signing secret (the secret itself is never in the
/// file: ``Configuration/webhookSecrets``).
public struct WebhookSettings: Sendable, Equatable {
    /// The receiver's URL as written (also the webhook's name in the outbox: URLs are unique).
    public var url: String
    public var target: WebhookURL
    /// The lists whose version changes are delivered.
    public var lists: [String]
    /// `secretEnv`: the variable holding the HMAC secret.
    public var secretEnvironmentVariable: String
    /// How long one delivery may take: connect, send, and the answer's status line.
    public var timeoutSeconds = 10
    /// The wait after the first failure; it doubles with each failure after it.
    public var firstRetryMilliseconds = 1_000
    /// The longest wait between attempts.
    public var maxRetrySeconds = 300
}

extension WebhookSettings {
    /// Reads the config's `webhooks` array; `lists` is the config's `lists` object (names are
    /// checked against its keys). Problems go to `issues`, with their JSON paths.
    static func parseAll(_ value: JSONValue?, lists: JSONValue?, issues: inout [ConfigIssue]) -> [WebhookSettings] {
        guard let value, !value.isNull else { return [] }
        guard let items = value.arrayValue else {
            issues.append(ConfigIssue(path: "webhooks", message: "must be an array of webhooks ({\"url\", \"lists\", \"secretEnv\"})"))
            return []
        }
        let known = Set(lists?.objectValue?.members.map(\.key) ?? [])
        var webhooks: [WebhookSettings] = []
        var seen: Set<String> = []
        for (index, item) in items.enumerated() {
            var reader = ObjectReader(item, path: "webhooks[\(index)]")
            let url = reader.string("url")
            let names = reader.strings("lists")
            let secret = reader.string("secretEnv")
            let timeout = reader.int("timeoutSeconds", in: 1...300)
            let firstRetry = reader.int("firstRetryMilliseconds", in: 1...3_600_000)
            let maxRetry = reader.int("maxRetrySeconds", in: 1...86_400)
            var target: WebhookURL?
            if let url {
                switch WebhookURL.parse(url) {
                case .success(let parsed): target = parsed
                case .failure(let error): reader.issue("url", error.message)
                }
                // By where it sends, not by its text: `HTTP://Host:80/x` and `http://host/x` are one receiver.
                if !seen.insert(target.map { "\($0.host.lowercased()) \($0.port) \($0.target)" } ?? url).inserted {
                    reader.issue("url", "is already used by another webhook (each URL once; list every list in its lists)")
                }
            } else if item.objectValue != nil {
                reader.issue("url", "is required (the receiver's http:// URL)")
            }
            if let names {
                if names.isEmpty { reader.issue("lists", "must name at least one list") }
                for name in names where !known.contains(name) { reader.issue("lists", "names '\(name)', which is not a list of this config") }
            } else if item.objectValue != nil {
                reader.issue("lists", "is required (the names of the lists whose changes are delivered)")
            }
            if let secret, secret.isEmpty {
                reader.issue("secretEnv", "must name an environment variable")
            } else if secret == nil && item.objectValue != nil {
                reader.issue("secretEnv", "is required (the environment variable holding the signing secret)")
            }
            issues += reader.finish()
            if let url, let target, let names, let secret, !secret.isEmpty {
                var settings = WebhookSettings(url: url, target: target, lists: names, secretEnvironmentVariable: secret)
                if let timeout { settings.timeoutSeconds = timeout }
                if let firstRetry { settings.firstRetryMilliseconds = firstRetry }
                if let maxRetry { settings.maxRetrySeconds = maxRetry }
                webhooks.append(settings)
            }
        }
        return webhooks
    }
}

extension Configuration {
    /// Every webhook with its secret, read from the variables `secretEnv` names. Throws
    /// ``ConfigError`` naming each webhook whose variable is unset or empty.
    public func webhookTargets() throws(ConfigError) -> [WebhookTarget] {
        var issues: [ConfigIssue] = []
        var targets: [WebhookTarget] = []
        for (index, webhook) in webhooks.enumerated() {
            guard let secret = webhookSecrets[webhook.secretEnvironmentVariable], !secret.isEmpty else {
                issues.append(ConfigIssue(path: "webhooks[\(index)].secretEnv", message: """
                    the environment variable \(webhook.secretEnvironmentVariable) is not set or empty; \
                    set it to the secret \(webhook.url) verifies deliveries with
                    """))
                continue
            }
            targets.append(WebhookTarget(settings: webhook, secret: Array(secret.utf8)))
        }
        guard issues.isEmpty else { throw ConfigError(issues) }
        return targets
    }
}

/// A webhook ready to deliver to: its settings and its secret.
public struct WebhookTarget: Sendable {
    public let settings: WebhookSettings
    let secret: [UInt8]
}
