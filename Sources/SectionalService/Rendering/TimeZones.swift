import Foundation
import ListModel
import Locking

/// The time zones lists name in `timeZone`: IANA names resolved with the platform's time zone
/// data into offset tables (``TimeZoneOffsets``), worked out once per name and kept.
enum TimeZones {
    private static let cache = Locked<[String: TimeZoneOffsets]>([:])
    /// The table covers these instants (1900-01-01 to 2100-01-01 UTC); outside, the nearest offset holds.
    private static let first = Date(timeIntervalSince1970: -2_208_988_800)
    private static let last = Date(timeIntervalSince1970: 4_102_444_800)

    /// The offsets of zone `identifier`; nil when it is not an IANA zone name the platform knows:
    /// one of its canonical names, or an `Area/Location` name its tz data resolves (a current
    /// name such as `Asia/Kolkata` that the platform lists under an old one, a link such as
    /// `US/Eastern`, `Etc/GMT+5`). Abbreviations such as `CEST` or `EST` are not names here.
    static func offsets(for identifier: String) -> TimeZoneOffsets? {
        if let known = TimeZoneOffsets.builtIn(identifier) { return known }
        if let known = cache.withLock({ $0[identifier] }) { return known }
        guard let zone = TimeZone(identifier: identifier),
              known.contains(identifier) || (identifier.contains("/") && zone.identifier == identifier) else { return nil }
        var transitions: [TimeZoneOffsets.Transition] = []
        var at = first
        while let next = zone.nextDaylightSavingTimeTransition(after: at), next < last, next > at {
            transitions.append(.init(start: Int64(next.timeIntervalSince1970.rounded()), offset: zone.secondsFromGMT(for: next)))
            at = next
        }
        let built = TimeZoneOffsets(identifier: identifier, initialOffset: zone.secondsFromGMT(for: first), transitions: transitions)
        cache.withLock { $0[identifier] = built }
        return built
    }

    /// The IANA names the platform lists (one name per zone: Foundation on Linux leaves out many
    /// names its tz data holds, such as `Asia/Kolkata` and the `US/…` and `Etc/…` names).
    private static let known = Set(TimeZone.knownTimeZoneIdentifiers)
}
