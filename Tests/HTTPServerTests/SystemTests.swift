@testable import HTTPServer
import XCTest

/// The cores the server starts a thread for: those of the process's affinity mask.
final class SystemTests: XCTestCase {
    func testAllowedCPUsAreReadFromTheStatusLine() {
        let status = "Name:\tsectional\nCpus_allowed:\t3\nCpus_allowed_list:\t0-1\nMems_allowed:\t1\n"
        XCTAssertEqual(System.allowedCPUs(status: status), [0, 1])
        XCTAssertEqual(System.allowedCPUs(status: "Cpus_allowed_list:\t1"), [1])
        XCTAssertEqual(System.allowedCPUs(status: "Cpus_allowed_list:\t0-3,8,10-11\n"), [0, 1, 2, 3, 8, 10, 11])
        XCTAssertEqual(System.allowedCPUs(status: "Cpus_allowed_list:   5-5 \n"), [5])
    }

    func testAStatusWithoutAReadableListCountsNothing() {
        for status in ["", "Name:\tx\n", "Cpus_allowed_list:\t\n", "Cpus_allowed_list:\t3-1", "Cpus_allowed_list:\t0-1-2",
                       "Cpus_allowed_list:\t0,,2", "Cpus_allowed_list:\tx", "Cpus_allowed_list:\t-1", "Cpus_allowed:\t3"] {
            XCTAssertNil(System.allowedCPUs(status: status), status)
        }
    }

    /// This process's own mask, as the kernel reports it, decides the count.
    func testCoreCountIsThisProcesssMask() throws {
        let allowed = try XCTUnwrap(System.allowedCPUs())
        XCTAssertEqual(System.coreCount, allowed.count)
        XCTAssertLessThanOrEqual(System.coreCount, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }
}
