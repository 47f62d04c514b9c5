import Foundation
import HTTPServer
import ListModel

/// Reading what a request asks for, with the problem answer when it is malformed.
extension Request {
    /// A path parameter that must be a valid name (`400 invalid-name`).
    func name(_ parameter: String, kind: String) throws(HTTPError) -> String {
        let value = self.parameter(parameter)
        guard Names.isValid(value) else { throw Problem.invalidName(kind, value) }
        return value
    }

    /// A path parameter that must be a whole number (`400 invalid-request`). One beyond `Int`'s
    /// range is its nearest end: a whole number all the same, so past any list's end.
    func integer(_ parameter: String, what: String) throws(HTTPError) -> Int {
        let text = self.parameter(parameter)
        guard let value = Self.wholeNumber(text, negative: true) else {
            throw Problem.invalidRequest("\(what) must be a whole number, not '\(Problem.echo(text))'.")
        }
        return value
    }

    /// An optional non-negative whole-number query parameter (`400 invalid-request`); one
    /// beyond `Int`'s range is `Int.max`.
    func queryInteger(_ name: String, default fallback: Int) throws(HTTPError) -> Int {
        guard let text = query(name) else { return fallback }
        guard let value = Self.wholeNumber(text, negative: false) else {
            throw Problem.invalidRequest("\(name) must be a whole number from 0, not '\(Problem.echo(text))'.")
        }
        return value
    }

    /// `text` as a whole number: ASCII digits, after a `-` when `negative` allows one; clamped to
    /// `Int`'s range. Nil for anything else (a sign alone, `+`, spaces, other digits).
    static func wholeNumber(_ text: String, negative: Bool) -> Int? {
        let digits = negative && text.utf8.first == 0x2D ? text.utf8.dropFirst() : text.utf8[...]
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text) ?? (digits.count < text.utf8.count ? Int.min : Int.max)
    }

    /// A required query parameter (`400 invalid-request` when absent); present but empty is the
    /// empty text (`type=` names the type of sections and rows that have none, `""`).
    func requiredQuery(_ name: String) throws(HTTPError) -> String {
        guard let value = query(name) else {
            throw Problem.invalidRequest("The query parameter '\(name)' is required.")
        }
        return value
    }

    /// A row count in a query parameter, by the `pageSize` rules: absent or 0 → 50, above 500
    /// (however many digits) → 500; anything but digits → `400 invalid-request`.
    func queryCount(_ name: String) throws(HTTPError) -> Int {
        do {
            return try PageSize.parse(query(name))
        } catch {
            throw Problem.invalidRequest("\(name) must be a whole number from 0 (0 means \(PageSize.defaultSize), above \(PageSize.maximum) means \(PageSize.maximum)), not '\(Problem.echo(error.text))'.")
        }
    }

    /// The body as a JSON value, after the content-type check: one `Content-Type` (two are `400
    /// invalid-request`: which one is meant is not guessed, as for `Authorization`), one of
    /// `mediaTypes` (`application/json` unless told), UTF-8 and no content coding but `identity`
    /// (`415` otherwise: a gzip body is not unpacked, and one labelled so is not read as plain),
    /// then `400 invalid-json`.
    func jsonBody(optional: Bool = false, mediaTypes: [String] = ["application/json"]) throws(HTTPError) -> JSONValue? {
        if optional && body.isEmpty { return nil }
        guard let (type, repeated) = headers.single("Content-Type") else { throw Problem.unsupportedMediaType(mediaTypes) }
        if repeated { throw Problem.invalidRequest("Send one Content-Type header, not several.") }
        if let coding = headers.list("Content-Encoding"),
           !coding.split(separator: ",").allSatisfy({ $0.trimmingCharacters(in: .whitespaces).lowercased() == "identity" }) {
            throw Problem.unsupportedContentEncoding(coding)
        }
        // The usual header, a media type alone, without Foundation (it took 4% of a write).
        if !mediaTypes.contains(where: { Self.equalsIgnoringASCIICase(type, $0) }) {
            let parts = type.split(separator: ";", omittingEmptySubsequences: false)
            guard mediaTypes.contains(parts[0].trimmingCharacters(in: .whitespaces).lowercased()) else {
                throw Problem.unsupportedMediaType(mediaTypes)
            }
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "charset" else { continue }
                let charset = pair[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                guard charset.lowercased() == "utf-8" else { throw Problem.unsupportedCharset(charset) }
            }
        }
        do {
            return try JSONParser.parse(body)
        } catch {
            throw Problem.invalidJSON("The body is not valid JSON: \(error).")
        }
    }

    /// Whether `text` is `lowercase` (ASCII lowercase) but for the case of its ASCII letters.
    private static func equalsIgnoringASCIICase(_ text: String, _ lowercase: String) -> Bool {
        guard text.utf8.count == lowercase.utf8.count else { return false }
        return zip(text.utf8, lowercase.utf8).allSatisfy { a, b in a == b || (a &- 0x41 < 26 && a | 0x20 == b) }
    }

    /// The body as a JSON object (`400 invalid-json` when it is another JSON value).
    func jsonObjectBody(optional: Bool = false, mediaTypes: [String] = ["application/json"]) throws(HTTPError) -> JSONObject? {
        guard let value = try jsonBody(optional: optional, mediaTypes: mediaTypes) else { return nil }
        guard let object = value.objectValue else { throw Problem.invalidJSON("The body must be a JSON object.") }
        return object
    }
}

/// A JSON answer written by the hot-path writer.
func jsonAnswer(status: HTTPStatus = .ok, capacity: Int = 1024, _ write: (inout JSONWriter) -> Void) -> Response {
    var writer = JSONWriter(capacity: capacity)
    write(&writer)
    return .json(writer.bytes, status: status)
}
