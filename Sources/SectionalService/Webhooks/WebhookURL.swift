import Foundation

/// Where a webhook's deliveries go: an `http://` URL taken apart for ``HTTPPoster``.
///
/// Only `http` is supported: the server links no TLS library, so a receiver sits on a private
/// network or behind a TLS-terminating proxy (nginx, a load balancer) the server reaches over
/// plain HTTP.
public struct WebhookURL: Sendable, Equatable {
    /// The host name or address (an IPv6 address without its brackets).
    public let host: String
    public let port: Int
    /// The request target: the path (at least `/`) and the query, if any.
    public let target: String

    /// The parts of `text`, or why it is not a usable webhook URL.
    public static func parse(_ text: String) -> Result<WebhookURL, WebhookURLError> {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            return .failure(WebhookURLError(message: "is not a URL"))
        }
        guard scheme == "http" else {
            let hint = scheme == "https"
                ? "https is not supported (no TLS library is linked): point the webhook at a TLS-terminating proxy, or use http on a private network"
                : "must be an http:// URL"
            return .failure(WebhookURLError(message: hint))
        }
        guard let host = components.host, !host.isEmpty else { return .failure(WebhookURLError(message: "has no host")) }
        guard components.user == nil, components.password == nil else {
            return .failure(WebhookURLError(message: "must not carry a user or password (deliveries are signed instead)"))
        }
        guard components.fragment == nil else { return .failure(WebhookURLError(message: "must not have a fragment")) }
        if let port = components.port, !(1...65535).contains(port) {
            return .failure(WebhookURLError(message: "has a port outside 1...65535"))
        }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        let target = path + (components.percentEncodedQuery.map { "?\($0)" } ?? "")
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return .success(WebhookURL(host: bare, port: components.port ?? 80, target: target))
    }

    /// The `Host` header's value.
    var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == 80 ? name : "\(name):\(port)"
    }
}

/// Why a text is not a usable webhook URL.
public struct WebhookURLError: Error, Sendable, Equatable {
    public let message: String
}
