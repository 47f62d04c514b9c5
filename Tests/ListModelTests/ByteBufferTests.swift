import XCTest
import JSONOutput
import TestSupport

/// `ByteBuffer`, where rows are encoded and templates render, must hold exactly what an array
/// appended the same way would, across every growth; its escaping and number text must be
/// byte for byte those of the array writers.
final class ByteBufferTests: XCTestCase {
    func testRandomAppendsMatchAnArray() {
        let seed: UInt64 = 20_261_202
        var rng = SplitMix64(seed: seed)
        let texts = ["", "a", "héllo", "日本語のテキスト", String(repeating: "x", count: 300)]
        for round in 0..<200 {
            var buffer = ByteBuffer(capacity: 1)
            var model: [UInt8] = []
            for step in 0..<Int.random(in: 1...60, using: &rng) {
                switch Int.random(in: 0..<7, using: &rng) {
                case 0:
                    let byte = UInt8.random(in: 0...255, using: &rng)
                    buffer.append(byte); model.append(byte)
                case 1:
                    let bytes = (0..<Int.random(in: 0...100, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                    bytes.withUnsafeBufferPointer { buffer.append($0) }
                    model += bytes
                case 2:
                    buffer.append(",\"title\":"); model += Array(",\"title\":".utf8)
                case 3:
                    let text = texts.randomElement(using: &rng)!
                    buffer.append(utf8: text); model += Array(text.utf8)
                case 4:
                    let value = Int.random(in: Int.min...Int.max, using: &rng)
                    buffer.write(reserving: 20) { $0.putInt(value) }
                    model += Array(String(value).utf8)
                case 5:
                    let bytes = Array(texts.randomElement(using: &rng)!.utf8)
                    buffer.append(bytes); model += bytes
                default:
                    if Int.random(in: 0..<10, using: &rng) == 0 { buffer.removeAll(); model.removeAll() }
                }
                XCTAssertEqual(buffer.count, model.count, "seed \(seed) round \(round) step \(step)")
            }
            XCTAssertEqual(buffer.array, model, "seed \(seed) round \(round)")
            XCTAssertEqual(buffer.isEmpty, model.isEmpty)
        }
    }

    func testEscapingMatchesTheArrayWriter() {
        let seed: UInt64 = 7_301
        var rng = SplitMix64(seed: seed)
        let pieces = ["a", "Z", "\"", "\\", "\n", "\u{01}", "\u{1F}", " ", "é", "日", "\t", "/"]
        for _ in 0..<2_000 {
            let text = (0..<Int.random(in: 0...40, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined()
            var array: [UInt8] = []
            JSONWriter.appendEscaped(text, to: &array)
            var buffer = ByteBuffer(capacity: 4)
            JSONWriter.appendEscaped(text, to: &buffer)
            XCTAssertEqual(buffer.array, array, "seed \(seed): \(text.debugDescription)")
        }
    }

    func testNumberTextMatchesTheArrayWriter() {
        let cases: [(Double, String)] = [(0, "0"), (-0.0, "-0"), (56, "56"), (-3, "-3"), (0.5, "0.5"), (1e-7, "1e-7"),
                                         (1e16, "1e+16"), (-1.5e300, "-1.5e+300"), (.nan, "null"), (.infinity, "null"),
                                         (9_007_199_254_740_992, "9007199254740992")]
        for (value, text) in cases {
            var array: [UInt8] = []
            JSONNumberText.appendDouble(value, to: &array)
            var buffer = ByteBuffer()
            JSONNumberText.appendDouble(value, to: &buffer)
            XCTAssertEqual(String(decoding: array, as: UTF8.self), text)
            XCTAssertEqual(buffer.string, text)
        }
        var buffer = ByteBuffer()
        for value: Int64 in [0, 7, -7, 10, Int64.max, Int64.min] {
            buffer.removeAll()
            JSONNumberText.appendInt(value, to: &buffer)
            XCTAssertEqual(buffer.string, String(value))
            var array: [UInt8] = []
            JSONNumberText.appendInt(value, to: &array)
            XCTAssertEqual(String(decoding: array, as: UTF8.self), String(value))
        }
    }

    /// Every value below 100,000, and around each power of ten up to `UInt.max`, as `String` writes it.
    func testDigitsAsStringWritesThem() {
        var values = Array(UInt(0)..<100_000)
        var power: UInt = 1
        while true {
            values += [power - 1, power, power + 1]
            let (next, overflow) = power.multipliedReportingOverflow(by: 10)
            if overflow { break }
            power = next
        }
        values += [UInt.max - 1, UInt.max]
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { room in
            for v in values {
                room.initialize(repeating: 0xEE)
                let n = JSONNumberText.write(v, to: room.baseAddress!)
                let text = String(v)
                let written = String(decoding: UnsafeBufferPointer(rebasing: room[..<n]), as: UTF8.self)
                if written != text || room[n] != 0xEE { XCTFail("\(v): wrote \(written), \(n) bytes"); return }
            }
        }
    }
}
