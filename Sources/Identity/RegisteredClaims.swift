import Foundation

/// The registered claims (RFC 7519 §4.1) of a payload, read leniently: a claim of the wrong type
/// reads as absent (so a numeric `sub` is "no string `sub`"), except the time claims, whose wrong
/// type is remembered in ``invalidTimeClaim`` and refused.
struct RegisteredClaims: Decodable {
    var subject: String?
    var issuer: String?
    var audience: [String]?
    var expiry: Double?
    var notBefore: Double?
    var invalidTimeClaim: String?

    private enum Key: String, CodingKey {
        case sub, iss, aud, exp, nbf, iat
    }

    init(from decoder: any Decoder) throws {
        let claims = try decoder.container(keyedBy: Key.self)
        subject = try? claims.decode(String.self, forKey: .sub)
        issuer = try? claims.decode(String.self, forKey: .iss)
        if let single = try? claims.decode(String.self, forKey: .aud) {
            audience = [single]
        } else {
            audience = try? claims.decode([String].self, forKey: .aud)
        }
        for key in [Key.exp, .nbf, .iat] where claims.contains(key) {
            guard let seconds = try? claims.decode(Double.self, forKey: key) else {
                invalidTimeClaim = invalidTimeClaim ?? key.rawValue
                continue
            }
            switch key {
            case .exp: expiry = seconds
            case .nbf: notBefore = seconds
            default: break
            }
        }
    }
}
