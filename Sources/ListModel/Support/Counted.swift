/// `count` and `noun`, with an `s` unless the count is one ("1 row", "3 rows"): for the English
/// of messages (problems, warnings, the command line's output).
public func counted(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
}
