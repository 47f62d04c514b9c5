@testable import HTTPServer
import XCTest

final class CompressionTests: XCTestCase {
    /// Whether a large JSON answer is gzipped for this `Accept-Encoding`.
    private func gzipped(_ acceptEncoding: String) -> Bool {
        let request = Request(method: .get, uri: "/", headers: HTTPHeaders([("Accept-Encoding", acceptEncoding)]))
        var response = Response.json(String(repeating: #"{"a":1},"#, count: 400))
        Compression.apply(to: &response, for: request)
        return response.headers["Content-Encoding"] == "gzip"
    }

    func testQualityValuesDecideWhetherGzipIsAcceptable() {
        for accepted in ["gzip", "GZIP", "br, gzip", "gzip;q=0.5", "gzip; q=1", "*", "identity;q=0.5, *;q=0.1", "x-gzip"] {
            XCTAssertTrue(gzipped(accepted), accepted)
        }
        for refused in ["gzip;q=0", "gzip;q=0.0", "gzip;q=0.000", "gzip; Q=0", "gzip;q=0, *", "*;q=0", "identity", "br",
                        "*, gzip;q=0", "gzip;q=nonsense"] {
            XCTAssertFalse(gzipped(refused), refused)
        }
    }

    /// A cached answer's memo gives the same gzip bytes to every request (its own kept storage,
    /// not a new compression), and only for its own body: another body of the same length put
    /// in the response is compressed afresh.
    func testAMemoCompressesItsOwnBodyOnce() {
        let request = Request(method: .get, uri: "/", headers: HTTPHeaders([("Accept-Encoding", "gzip")]))
        let body = Array(String(repeating: #"{"a":1},"#, count: 400).utf8)
        let memo = ResponseMemo(body)
        func served(_ body: [UInt8]) -> [UInt8] {
            var response = Response.json(body)
            response.memo = memo
            Compression.apply(to: &response, for: request)
            XCTAssertEqual(response.headers["Content-Encoding"], "gzip")
            return response.body
        }
        let first = served(body)
        let second = served(body)
        XCTAssertEqual(first, Compression.gzip(body))
        XCTAssertTrue(first.withUnsafeBufferPointer { a in second.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress } })
        let other = Array(String(repeating: #"{"b":2},"#, count: 400).utf8)
        XCTAssertEqual(other.count, body.count)
        XCTAssertEqual(served(other), Compression.gzip(other))
        XCTAssertNotEqual(Compression.gzip(other), first)
    }

    /// Items, parameters and spaces as clients send them, read as `Accept-Language` is
    /// (``WeightedList``: of two `q` the last counts).
    func testAcceptEncodingIsReadItemByItem() {
        for accepted in [" gzip ", "deflate,gzip", "br;q=1.0, gzip;q=0.8, *;q=0.1", "gzip;level=1;q=0.3", "X-GZIP", "*;q=0.5",
                         "gzip;q=0;q=1"] {
            XCTAssertTrue(gzipped(accepted), accepted)
        }
        for refused in ["", ",", "gzip;q=-1", "gzipx", "deflate, br;q=1", "gzip;q=1;q=0", "*;q=0, identity", "gzip;q=x"] {
            XCTAssertFalse(gzipped(refused), refused)
        }
    }
}
