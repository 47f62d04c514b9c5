/// A `sortBy` rule's `as`: what a field's value is read as before rows compare by it. A value
/// that does not convert sorts last (missing), in both directions.
public enum SortType: String, Sendable, Equatable, CaseIterable {
    /// Numbers, and strings that are JSON numbers (`"12.50"`), by exact value.
    case number
    /// Strings, and numbers and booleans as their text (`10` is `"10"`), by code points.
    case string
    /// ISO 8601 strings (any offset) and epoch seconds (numbers, and strings that are JSON
    /// numbers, as the `date` formatter reads them), compared as instants (to the millisecond):
    /// `23:30+01:00` comes before `23:00Z`.
    case date

    /// The sort value of `value` read as this type.
    func sortValue(_ value: JSONValue?) -> SortValue {
        guard let value else { return .missing }
        switch self {
        case .number:
            switch value {
            case .int, .double, .number: return SortValue(value)
            case .string(let text):
                guard let parsed = try? JSONParser.parse(text), parsed.isNumber else { return .missing }
                return SortValue(parsed)
            default: return .missing
            }
        case .string:
            switch value {
            case .string: return SortValue(value)
            case .int, .double, .number, .bool: return .string(plainText(value))
            default: return .missing
            }
        case .date:
            switch value {
            case .string(let text):
                if let instant = CivilTime.parseISO8601(text) { return .int(instant.seconds * 1000 + Int64(instant.millisecond)) }
                // Epoch seconds written as a string (`"1700000000"`), as the `date` formatter reads them.
                guard let parsed = try? JSONParser.parse(text), parsed.isNumber else { return .missing }
                return sortValue(parsed)
            case .int, .double, .number:
                guard let seconds = value.doubleValue, seconds.isFinite, abs(seconds) < 1e13 else { return .missing }
                return .int(TemplateFormatter.epochMilliseconds(seconds))
            default: return .missing
            }
        }
    }
}
