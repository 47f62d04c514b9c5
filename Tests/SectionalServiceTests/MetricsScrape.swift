import Foundation
import TestSupport

/// One sample of a `/metrics` answer: the value on the line that starts with `series ` (a
/// metric name, with its labels when it has any), or nil when there is no such line.
func metricValue(_ text: String, _ series: String) -> Double? {
    for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
        return Double(line.dropFirst(series.count + 1))
    }
    return nil
}

extension TestApp {
    /// One sample of `/metrics` (see ``metricValue(_:_:)``).
    func metric(_ series: String) throws -> Double? { metricValue(try get("/metrics").text, series) }
}
