import Identity
import ListModel
import ListStore

/// What a delivery sends: the body `{"list","version","user"?}` and its signature,
/// `Sectional-Signature: sha256=<hex>` — the HMAC-SHA-256 (libcrypto) of the exact body bytes
/// under the webhook's secret, in lower-case hex.
struct WebhookSigner: Sendable {
    /// The header the signature travels in.
    static let header = "Sectional-Signature"

    let secret: [UInt8]

    /// The body of a delivery: the list, its version, and for a user's partition the user (the
    /// value of the list's scope field, as stored: a string for a `sub` claim).
    static func body(of delivery: PendingDelivery) -> [UInt8] {
        var writer = JSONWriter(capacity: 64 + delivery.list.utf8.count + (delivery.user?.utf8.count ?? 0))
        writer.beginObject()
        writer.key("list")
        writer.string(delivery.list)
        writer.key("version")
        writer.int64(delivery.version)
        if let user = delivery.user {
            writer.key("user")
            writer.rawValue(Array(user.utf8))
        }
        writer.endObject()
        return writer.bytes
    }

    /// The header value for `body`: `sha256=` and the HMAC in hex; nil only when libcrypto fails.
    func signature(of body: [UInt8]) -> String? {
        guard let code = HMACSHA256.authenticationCode(key: secret, message: body) else { return nil }
        return "sha256=" + Self.hex(code)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
