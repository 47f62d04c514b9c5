import ListModel

/// Reads one JSON object of the configuration strictly: typed fields, and unknown keys reported
/// with their JSON path so typos never pass silently.
struct ObjectReader {
    let path: String
    let object: JSONObject
    private(set) var issues: [ConfigIssue] = []
    private var seen: Set<String> = []

    /// Reads `value` as an object at `path`; a non-object becomes an issue and an empty reader.
    init(_ value: JSONValue?, path: String) {
        self.path = path
        if let object = value?.objectValue {
            self.object = object
        } else {
            self.object = JSONObject()
            if value != nil { issues.append(ConfigIssue(path: path, message: "must be an object")) }
        }
    }

    func child(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    mutating func raw(_ key: String) -> JSONValue? {
        seen.insert(key)
        return object[key]
    }

    mutating func string(_ key: String) -> String? {
        guard let value = raw(key), !value.isNull else { return nil }
        guard let text = value.stringValue else { return fail(key, "must be a string") }
        // No setting holds one, and a path with one is cut there by the system: a database path
        // ending in NUL made its lock file the database itself, which the lock then emptied.
        guard !text.utf8.contains(0) else { return fail(key, "must not hold a NUL character (\\u0000)") }
        return text
    }

    mutating func int(_ key: String, in range: ClosedRange<Int>) -> Int? {
        guard let value = raw(key), !value.isNull else { return nil }
        guard let number = value.intValue, range.contains(Int(number)) else {
            return fail(key, "must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return Int(number)
    }

    mutating func bool(_ key: String) -> Bool? {
        guard let value = raw(key), !value.isNull else { return nil }
        guard let flag = value.boolValue else { return fail(key, "must be true or false") }
        return flag
    }

    mutating func strings(_ key: String) -> [String]? {
        guard let value = raw(key), !value.isNull else { return nil }
        guard let items = value.arrayValue, items.allSatisfy({ $0.stringValue != nil }) else {
            return fail(key, "must be an array of strings")
        }
        return items.compactMap(\.stringValue)
    }

    mutating func object(_ key: String) -> ObjectReader {
        ObjectReader(raw(key), path: child(key))
    }

    mutating func issue(_ key: String, _ message: String) {
        issues.append(ConfigIssue(path: child(key), message: message))
    }

    /// Adds an issue for every key that was never read, and returns every issue.
    mutating func finish() -> [ConfigIssue] {
        for member in object where !seen.contains(member.key) {
            issues.append(ConfigIssue(path: child(member.key), message: "unknown key"))
        }
        return issues
    }

    private mutating func fail<T>(_ key: String, _ message: String) -> T? {
        issue(key, message)
        return nil
    }
}
