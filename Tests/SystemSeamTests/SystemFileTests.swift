import Testing
import SystemSeam

/// The portable data sync succeeds on a written file and reports a bad descriptor as
/// `fdatasync` does.
@Suite struct SystemFileTests {
    @Test func aWrittenFileSyncs() throws {
        var template = Array("/tmp/system-file-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        try #require(fd >= 0)
        defer {
            close(fd)
            unlink(template)
        }
        var byte: UInt8 = 7
        #expect(write(fd, &byte, 1) == 1)
        #expect(SystemFile.syncData(fd) == 0)
    }

    @Test func aClosedDescriptorFailsWithEBADF() throws {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        close(fds[0])
        close(fds[1])
        #expect(SystemFile.syncData(fds[0]) == -1)
        #expect(errno == EBADF)
    }
}
