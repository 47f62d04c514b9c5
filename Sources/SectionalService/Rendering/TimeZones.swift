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

    /// The offsets of zone `identifier`; nil when it is not an IANA zone name the platform knows.
    static func offsets(for identifier: String) -> TimeZoneOffsets? {
        if let known = TimeZoneOffsets.builtIn(identifier) { return known }
        if let known = cache.withLock({ $0[identifier] }) { return known }
        guard known.contains(identifier), let zone = TimeZone(identifier: identifier) else { return nil }
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

    /// The IANA names the platform knows (abbreviations such as `CET` or `EST` are not names here).
    private static let known = Set(TimeZone.knownTimeZoneIdentifiers)
}
