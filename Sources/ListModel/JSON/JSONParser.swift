import JSONOutput

/// A strict RFC 8259 JSON parser over UTF-8 bytes.
///
/// Rejects invalid UTF-8 (including overlong forms, surrogates and lone `\u` surrogate escapes),
/// anything that is not exactly one JSON value surrounded by optional whitespace, a byte-order
/// mark, duplicate member names, numbers outside the `Double` range (and nonzero numbers with
/// an exponent of 10^15 or more in magnitude) and nesting deeper than ``maxDepth``. Integers
/// that fit `Int64` become ``JSONValue/int(_:)``; other numbers ``JSONValue/double(_:)`` when
/// the writer prints that double back as the same text, else ``JSONValue/number(_:)`` (text
/// kept as written).
public enum JSONParser {
    /// The deepest nesting accepted: 64 arrays/objects inside each other; 65 is an error.
    public static let maxDepth = 64

    /// Parses a complete JSON text.
    public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        let result: Result<JSONValue, JSONParseError> = bytes.withUnsafeBufferPointer { buf in
            var p = Parser(buf)
            do throws(JSONParseError) { return .success(try p.parseDocument()) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Parses a complete JSON text, reusing the outer object's member names that `names` holds
    /// from earlier documents (records of one collection repeat theirs) and keeping this one's.
    /// The value is the one ``parse(_:)`` gives.
    public static func parse(_ bytes: [UInt8], names: inout MemberNames) throws(JSONParseError) -> JSONValue {
        let result: Result<JSONValue, JSONParseError> = bytes.withUnsafeBufferPointer { buf in
            var p = Parser(buf)
            p.names = MemberNames()
            swap(&p.names!, &names)  // moved, not copied: the arrays stay uniquely referenced
            defer { swap(&p.names!, &names) }
            do throws(JSONParseError) { return .success(try p.parseDocument()) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// The member names of the outer object of the last document parsed with them, by position:
    /// a name the next document repeats at the same position is matched as bytes rather than
    /// decoded into a new string.
    public struct MemberNames: Sendable {
        private(set) var texts: [String] = []
        private(set) var bytes: [[UInt8]] = []
        /// Per position: whether its name differs from every name before it. A document whose
        /// names all matched so far needs no duplicate check for a matched name that does:
        /// callgrind over a 100,000-record start, the check was 1,700 of the 12,300 instructions
        /// a record's parse took.
        private(set) var unique: [Bool] = []
        /// None yet.
        public init() {}

        /// Sets (or appends, at `count`) the name at `position`.
        mutating func set(_ position: Int, text: String, bytes raw: [UInt8]) {
            if position == bytes.count {
                bytes.append(raw)
                texts.append(text)
                unique.append(true)
            } else {
                bytes[position] = raw
                texts[position] = text
            }
            for p in position..<bytes.count {
                unique[p] = !bytes[..<p].contains(bytes[p])
            }
        }
    }

    /// Parses a complete JSON text from raw memory.
    public static func parse(_ buffer: UnsafeRawBufferPointer) throws(JSONParseError) -> JSONValue {
        var p = Parser(buffer.bindMemory(to: UInt8.self))
        return try p.parseDocument()
    }

    /// Parses a complete JSON text given as a string.
    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }
}

private struct Parser {
    let base: UnsafePointer<UInt8>?
    let end: Int
    var i = 0
    var depth = 0
    var scratch: [UInt8] = []
    /// Member names of the outer object to match (see ``JSONParser/MemberNames``); nil when the
    /// caller keeps none (one document: remembering its names would only cost).
    var names: JSONParser.MemberNames?
    /// The depth and member count of the object closed last: the next object at that depth
    /// (the next record of a batch's array) reserves that room (see ``parseObject()``).
    var lastObject = (depth: 0, count: 0)

    init(_ buf: UnsafeBufferPointer<UInt8>) {
        base = buf.baseAddress
        end = buf.count
    }

    @inline(__always) func byte(_ k: Int) -> UInt8 { base![k] }

    func fail(_ message: String, _ at: Int) -> JSONParseError { JSONParseError(message: message, offset: at) }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        guard i < end else { throw fail("unexpected end of input", i) }
        let v = try parseValue()
        skipWhitespace()
        if i < end { throw fail("unexpected trailing characters", i) }
        return v
    }

    @inline(__always) mutating func skipWhitespace() {
        while i < end {
            let b = byte(i)
            if b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { i += 1 } else { return }
        }
    }

    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard i < end else { throw fail("unexpected end of input", i) }
        switch byte(i) {
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw fail("unexpected character", i)
        }
    }

    mutating func literal(_ word: StaticString) throws(JSONParseError) {
        let n = word.utf8CodeUnitCount
        let w = word.utf8Start
        for k in 0..<n {
            guard i + k < end else { throw fail("unexpected end of input", i + k) }
            guard byte(i + k) == w[k] else { throw fail("invalid literal", i + k) }
        }
        i += n
    }

    mutating func enter() throws(JSONParseError) {
        depth += 1
        if depth > JSONParser.maxDepth { throw fail("nesting deeper than \(JSONParser.maxDepth)", i) }
    }

    mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enter()
        i += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if i < end, byte(i) == UInt8(ascii: "]") { i += 1; depth -= 1; return .array(items) }
        while true {
            skipWhitespace()
            items.append(try parseValue())
            skipWhitespace()
            guard i < end else { throw fail("unexpected end of input", i) }
            let b = byte(i)
            i += 1
            if b == UInt8(ascii: ",") { continue }
            if b == UInt8(ascii: "]") { break }
            throw fail("expected ',' or ']'", i - 1)
        }
        depth -= 1
        return .array(items)
    }

    mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enter()
        i += 1
        var members: [JSONObject.Member] = []
        var seen: Set<CodePointKey>? = nil
        /// Whether every name so far was matched from ``names`` (false for any object but the outer one).
        var allKnown = depth == 1 && names != nil
        skipWhitespace()
        if i < end, byte(i) == UInt8(ascii: "}") { i += 1; depth -= 1; return .object(JSONObject(uncheckedMembers: members)) }
        // Room at once rather than growing 1, 2, 4, 8, 16 (each growth a new allocation and a
        // copy of the members) for as many members as are likely: for an outer object 8, or
        // more when the outer objects parsed with the same `names` had more (stored records of
        // one collection); inside, as many as the object closed last at this depth had (a
        // batch's records are alike). A fixed 8 for outer objects only left each of the demo's
        // people (10 or 11 members) a reallocation at start-up, 900 instructions a record
        // (callgrind, 100,000-record start), and each record of a batch grew by doubling from
        // nothing. At most 64 on a guess.
        let likely = depth == 1 ? max(8, names?.bytes.count ?? 0) : lastObject.depth == depth ? lastObject.count : 0
        if likely > 0 { members.reserveCapacity(min(likely, 64)) }
        while true {
            skipWhitespace()
            guard i < end else { throw fail("unexpected end of input", i) }
            guard byte(i) == UInt8(ascii: "\"") else { throw fail("expected a member name", i) }
            let keyStart = i
            let key: String
            if depth == 1, names != nil {
                let known: Bool
                (key, known) = try outerName(at: members.count)
                allKnown = allKnown && known
            } else {
                key = try parseString()
            }
            // Duplicate names (compared by code points): linear for small objects, a set beyond;
            // none possible when every name so far is the remembered one at its position and
            // this one differs from those before it.
            if seen != nil {
                if !seen!.insert(CodePointKey(key)).inserted { throw fail("duplicate member name", keyStart) }
            } else {
                if !(allKnown && names!.unique[members.count]) {
                    // Lengths first: most names differ in length, and comparing them is O(1).
                    let length = key.utf8.count
                    for m in members where m.key.utf8.count == length && m.key.utf8.elementsEqual(key.utf8) {
                        throw fail("duplicate member name", keyStart)
                    }
                }
                if members.count == 15 {
                    var set = Set(members.map { CodePointKey($0.key) })
                    set.insert(CodePointKey(key))
                    seen = set
                }
            }
            skipWhitespace()
            guard i < end else { throw fail("unexpected end of input", i) }
            guard byte(i) == UInt8(ascii: ":") else { throw fail("expected ':'", i) }
            i += 1
            skipWhitespace()
            let v = try parseValue()
            members.append((key: key, value: v))
            skipWhitespace()
            guard i < end else { throw fail("unexpected end of input", i) }
            let b = byte(i)
            i += 1
            if b == UInt8(ascii: ",") { continue }
            if b == UInt8(ascii: "}") { break }
            throw fail("expected ',' or '}'", i - 1)
        }
        lastObject = (depth, members.count)
        depth -= 1
        return .object(JSONObject(uncheckedMembers: members))
    }

    /// The name of the outer object's member number `position`, starting at its opening quote:
    /// the name at that position in ``names`` when the bytes up to the closing quote are its
    /// bytes (it was decoded from them without escapes, so decoding them again gives it), else
    /// parsed and remembered there.
    /// Returns the name and whether it was the remembered one.
    mutating func outerName(at position: Int) throws(JSONParseError) -> (String, known: Bool) {
        if position < names!.bytes.count {
            let known = names!.bytes[position]
            let n = known.count
            if i + 1 + n < end, byte(i + 1 + n) == UInt8(ascii: "\""),
               known.withUnsafeBufferPointer({ memcmpBytes($0.baseAddress!, base! + i + 1, n) == 0 }) {
                i += n + 2
                return (names!.texts[position], true)
            }
        }
        let start = i + 1
        let key = try parseString()
        let raw = UnsafeBufferPointer(start: base! + start, count: i - 1 - start)
        guard position <= names!.bytes.count, raw.count == key.utf8.count, raw.count > 0 else { return (key, false) }  // escapes: not kept
        names!.set(position, text: key, bytes: Array(raw))
        return (key, false)
    }

    /// Parses a string starting at the opening quote; validates UTF-8 as it goes.
    mutating func parseString() throws(JSONParseError) -> String {
        i += 1
        let start = i
        // Fast path: no escapes. Plain ASCII (no quote, backslash, control byte or byte ≥ 0x80)
        // is skipped 8 bytes at a time; the byte loop then finds what stopped it.
        while i + 8 <= end {
            let x = UnsafeRawPointer(base! + i).loadUnaligned(as: UInt64.self)
            if x & 0x8080_8080_8080_8080 != 0 || JSONWriter.needsEscape(x) { break }
            i += 8
        }
        while i < end {
            let b = byte(i)
            if b == UInt8(ascii: "\"") {
                let s = String(decoding: UnsafeBufferPointer(start: base! + start, count: i - start), as: UTF8.self)
                i += 1
                return s
            }
            if b == UInt8(ascii: "\\") { break }
            if b < 0x20 { throw fail("control character in string", i) }
            if b < 0x80 { i += 1 } else { try validateUTF8Sequence() }
        }
        guard i < end else { throw fail("unterminated string", i) }
        // Slow path: copy what we have and decode escapes.
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(start: base! + start, count: i - start))
        while i < end {
            let b = byte(i)
            if b == UInt8(ascii: "\"") {
                i += 1
                return String(decoding: scratch, as: UTF8.self)
            }
            if b == UInt8(ascii: "\\") {
                try parseEscape()
            } else if b < 0x20 {
                throw fail("control character in string", i)
            } else if b < 0x80 {
                scratch.append(b); i += 1
            } else {
                let s = i
                try validateUTF8Sequence()
                scratch.append(contentsOf: UnsafeBufferPointer(start: base! + s, count: i - s))
            }
        }
        throw fail("unterminated string", i)
    }

    mutating func parseEscape() throws(JSONParseError) {
        let at = i
        i += 1
        guard i < end else { throw fail("unterminated string", i) }
        let c = byte(i)
        i += 1
        switch c {
        case UInt8(ascii: "\""): scratch.append(0x22)
        case UInt8(ascii: "\\"): scratch.append(0x5C)
        case UInt8(ascii: "/"): scratch.append(0x2F)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4()
            if scalar >= 0xD800 && scalar < 0xDC00 {
                guard i + 1 < end, byte(i) == UInt8(ascii: "\\"), byte(i + 1) == UInt8(ascii: "u") else {
                    throw fail("unpaired surrogate escape", at)
                }
                i += 2
                let low = try hex4()
                guard low >= 0xDC00 && low < 0xE000 else { throw fail("unpaired surrogate escape", at) }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if scalar >= 0xDC00 && scalar < 0xE000 {
                throw fail("unpaired surrogate escape", at)
            }
            appendScalar(scalar)
        default:
            throw fail("invalid escape", at)
        }
    }

    mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard i + 4 <= end else { throw fail("invalid \\u escape", i) }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = byte(i)
            let d: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = c - UInt8(ascii: "A") + 10
            default: throw fail("invalid \\u escape", i)
            }
            v = v << 4 | UInt32(d)
            i += 1
        }
        return v
    }

    mutating func appendScalar(_ s: UInt32) {
        if s < 0x80 {
            scratch.append(UInt8(s))
        } else if s < 0x800 {
            scratch.append(UInt8(0xC0 | (s >> 6)))
            scratch.append(UInt8(0x80 | (s & 0x3F)))
        } else if s < 0x10000 {
            scratch.append(UInt8(0xE0 | (s >> 12)))
            scratch.append(UInt8(0x80 | ((s >> 6) & 0x3F)))
            scratch.append(UInt8(0x80 | (s & 0x3F)))
        } else {
            scratch.append(UInt8(0xF0 | (s >> 18)))
            scratch.append(UInt8(0x80 | ((s >> 12) & 0x3F)))
            scratch.append(UInt8(0x80 | ((s >> 6) & 0x3F)))
            scratch.append(UInt8(0x80 | (s & 0x3F)))
        }
    }

    /// Validates one multi-byte UTF-8 sequence at `i` (first byte ≥ 0x80) and advances past it.
    @inline(__always) mutating func validateUTF8Sequence() throws(JSONParseError) {
        let b0 = byte(i)
        @inline(__always) func cont(_ k: Int) -> UInt8? {
            guard k < end else { return nil }
            let b = byte(k)
            return b & 0xC0 == 0x80 ? b : nil
        }
        switch b0 {
        case 0xC2...0xDF:
            guard cont(i + 1) != nil else { throw fail("invalid UTF-8", i) }
            i += 2
        case 0xE0...0xEF:
            guard let b1 = cont(i + 1), cont(i + 2) != nil else { throw fail("invalid UTF-8", i) }
            if b0 == 0xE0 && b1 < 0xA0 { throw fail("invalid UTF-8", i) }   // overlong
            if b0 == 0xED && b1 >= 0xA0 { throw fail("invalid UTF-8", i) }  // surrogate
            i += 3
        case 0xF0...0xF4:
            guard let b1 = cont(i + 1), cont(i + 2) != nil, cont(i + 3) != nil else { throw fail("invalid UTF-8", i) }
            if b0 == 0xF0 && b1 < 0x90 { throw fail("invalid UTF-8", i) }   // overlong
            if b0 == 0xF4 && b1 >= 0x90 { throw fail("invalid UTF-8", i) }  // > U+10FFFF
            i += 4
        default:
            throw fail("invalid UTF-8", i)
        }
    }

    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = i
        var negative = false
        if byte(i) == UInt8(ascii: "-") { negative = true; i += 1 }
        guard i < end, isDigit(byte(i)) else { throw fail("invalid number", i) }
        var value: UInt64 = 0
        var overflow = false
        var nonzero = false
        if byte(i) == UInt8(ascii: "0") {
            i += 1
            if i < end, isDigit(byte(i)) { throw fail("leading zero in number", i) }
        } else {
            nonzero = true
            while i < end, isDigit(byte(i)) {
                let d = UInt64(byte(i) - UInt8(ascii: "0"))
                let (m, o1) = value.multipliedReportingOverflow(by: 10)
                let (a, o2) = m.addingReportingOverflow(d)
                if o1 || o2 { overflow = true } else { value = a }
                i += 1
            }
        }
        var isInteger = true
        // The fraction's digits as an integer and their count (while at most 15 with the integer part's).
        var fraction: UInt64 = 0
        var fractionDigits = 0
        if i < end, byte(i) == UInt8(ascii: ".") {
            isInteger = false
            i += 1
            guard i < end, isDigit(byte(i)) else { throw fail("invalid number", i) }
            while i < end, isDigit(byte(i)) {
                if byte(i) != UInt8(ascii: "0") { nonzero = true }
                if fractionDigits < 16 { fraction = fraction &* 10 &+ UInt64(byte(i) - UInt8(ascii: "0")) }
                fractionDigits += 1
                i += 1
            }
        }
        var exponentDigits = 0
        var hasExponent = false
        if i < end, byte(i) == UInt8(ascii: "e") || byte(i) == UInt8(ascii: "E") {
            isInteger = false
            hasExponent = true
            i += 1
            if i < end, byte(i) == UInt8(ascii: "+") || byte(i) == UInt8(ascii: "-") { i += 1 }
            guard i < end, isDigit(byte(i)) else { throw fail("invalid number", i) }
            while i < end, isDigit(byte(i)) {
                if exponentDigits > 0 || byte(i) != UInt8(ascii: "0") { exponentDigits += 1 }
                i += 1
            }
        }
        if isInteger && !overflow {
            if !negative, value <= UInt64(Int64.max) { return .int(Int64(value)) }
            if negative, value != 0, value <= UInt64(Int64.max) + 1 { return .int(value == UInt64(Int64.max) + 1 ? Int64.min : -Int64(value)) }
        }
        let bytes = UnsafeBufferPointer(start: base! + start, count: i - start)
        // A decimal of at most 15 digits without an exponent is an exact integer (below 2^53)
        // over an exact power of ten, so one division rounds it as `Double(text)` does.
        let integerDigits = i - start - (negative ? 1 : 0) - (isInteger ? 0 : fractionDigits + 1)
        if !isInteger, !hasExponent, !overflow, integerDigits + fractionDigits <= 15 {
            let magnitude = Double(value * Parser.powersOfTen[fractionDigits] + fraction) / Double(Parser.powersOfTen[fractionDigits])
            let d = negative ? -magnitude : magnitude
            if JSONNumberText.writesBack(d, as: bytes) { return .double(d) }
        }
        let text = String(decoding: bytes, as: UTF8.self)
        // A nonzero number needs an exponent below 10^15 in magnitude (so its exact value has
        // a bounded form); zero may carry any exponent.
        guard let d = Double(text), d.isFinite, !nonzero || exponentDigits <= 15 else { throw fail("number out of range", start) }
        return JSONNumberText.writesBack(d, as: bytes) ? .double(d) : .number(JSONNumber(unchecked: text))
    }

    /// 10^0 … 10^15.
    static let powersOfTen: [UInt64] = (0...15).map { k in (0..<k).reduce(1) { acc, _ in acc * 10 } }

    @inline(__always) func isDigit(_ b: UInt8) -> Bool { b &- UInt8(ascii: "0") < 10 }
}
