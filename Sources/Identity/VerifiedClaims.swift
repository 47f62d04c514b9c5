import Foundation

/// The claims of a user token whose signature, times, issuer and audience have been checked.
public struct VerifiedClaims: Equatable, Sendable {
    /// `sub`: who the token is about, the user's id.
    public let subject: String
    /// `iss`, if the token has a string one.
    public let issuer: String?
    /// `aud`: the audiences the token names (a single string becomes one element).
    public let audience: [String]
    /// `exp`: when the token stops being valid.
    public let expiresAt: Date
    /// `nbf`: when the token starts being valid, if it says.
    public let notBefore: Date?
    /// The algorithm the signature was verified with.
    public let algorithm: JWSAlgorithm
    /// The payload as JSON text, verified, for claims beyond the registered ones.
    public let payload: [UInt8]
}
