import Foundation
import SectionalClient
@testable import SectionalService
import TestSupport
import XCTest

/// A mirror behind a load balancer that sends its event stream to one instance and its reads to
/// another, on one PostgreSQL database (Debian's nginx, two servers in this process).
final class MirrorInstancesTests: XCTestCase {
    /// The instance that answers a sync has not applied the version the other announced: the
    /// sync the event starts asks for that version (the instance waits for it, or answers `503`
    /// and the sync is tried again), so the mirror takes the write in. Before, the instance said
    /// the list had not moved, and the mirror stayed behind until the next write.
    func testASyncAnEventStartsReadsAtLeastTheEventsVersion() async throws {
        let database = try PostgresTestDatabase(cluster: try PostgresTestDatabase.clusterURL())
        defer { database.drop() }
        let announcer = try LiveServer(postgres: database.url)
        let reader = try LiveServer(postgres: database.url)
        // Behind from here on, as an instance whose follower lags is: it takes in the others'
        // versions only when it commits a write of its own.
        reader.server.follower?.stop()
        let nginx = try NginxProcess { port in
            """
            events {}
            http {
                access_log off;
                client_body_temp_path temp/client_body; proxy_temp_path temp/proxy; fastcgi_temp_path temp/fastcgi;
                uwsgi_temp_path temp/uwsgi; scgi_temp_path temp/scgi;
                server {
                    listen 127.0.0.1:\(port);
                    proxy_http_version 1.1;
                    proxy_set_header Connection "";
                    location ~ /events$ { proxy_pass http://127.0.0.1:\(announcer.port); proxy_buffering off; proxy_read_timeout 60s; }
                    location / { proxy_pass http://127.0.0.1:\(reader.port); }
                }
            }
            """
        }
        defer { nginx.stop() }
        let balanced = SectionalClient(baseURL: try XCTUnwrap(URL(string: "http://127.0.0.1:\(nginx.port)")))
        let mirror = ListMirror(list: balanced.list("people"))
        let before = try await mirror.reload().snapshot.version
        var updates = mirror.updates(reconnectDelay: 0.1).makeAsyncIterator()

        let written = try await SectionalClient(baseURL: announcer.url).collection("people").put("p1", person("p1", "Ada", "Design")).written.version
        XCTAssertGreaterThan(written, Int(before))
        // The reader is asked for the version and cannot give it yet …
        let metrics = try HTTPTestClient(port: reader.port)
        let refused = eventually(within: 20) {
            let text = (try? metrics.request("GET", "/metrics").text) ?? ""
            return text.contains(#"sectional_http_requests_total{route="/v1/lists/{list}/changes",method="GET",status="503"}"#)
        }
        XCTAssertTrue(refused, "the sync asks the reader for the announced version")
        // … until it commits a write of its own (to a collection no list reads), which takes in
        // the announcer's version first; the sync, tried again, then gets it.
        _ = try await SectionalClient(baseURL: reader.url).collection("notes").put("n1", ["text": "x"])
        let update = try await updates.next()
        XCTAssertEqual(update?.snapshot.version, Int64(written), "the mirror takes the announced write in")
        XCTAssertTrue(update?.snapshot.sections.contains { $0.rows.contains { $0?.id == "p1" } } ?? false)
    }
}
