import HTTPServer
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
}
