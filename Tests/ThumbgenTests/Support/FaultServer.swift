import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A misbehaving HTTP server on 127.0.0.1 for the fetching tests: `fault_server.py` beside
/// this file (its docstring lists the routes), run by python3 as a child process.
///
/// The child exits on `stop()` (also called from `deinit`), after ten minutes, or when the
/// test process goes away, so it cannot outlive a test run. Every call here blocks (briefly,
/// and never longer than its timeout): it is plain socket I/O, meant for test code.
///
///     let server = try FaultServer(root: folder.url)
///     let source = server.url("/flaky/2/503/a.png?retry_after=0")
///     // ... run thumbgen on a manifest naming `source` ...
///     #expect(try server.counts()["/flaky/2/503/a.png?retry_after=0"] == 3)
///     try server.resetCounts()
final class FaultServer: Sendable {
    /// The port it listens on, on 127.0.0.1.
    let port: Int
    private let process: Process
    private let stopped = Mutex(false)

    /// The server script, found beside this file.
    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().appendingPathComponent("fault_server.py")

    /// Starts a server for the files under `root`; throws when python3 is missing or the
    /// server does not announce its port within `startTimeout`.
    init(root: URL, verbose: Bool = false, startTimeout: Duration = .seconds(10)) throws {
        guard let python = Self.python3() else { throw FaultServerError.pythonMissing }
        let process = Process()
        process.executableURL = python
        process.arguments = [Self.script.path, "--root", root.path, "--port", "0"]
            + (verbose ? ["--verbose"] : [])
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        // Standard error is inherited, so a traceback from the server shows in the test log.
        try process.run()
        do {
            let line = try Self.firstLine(of: output.fileHandleForReading.fileDescriptor,
                                          within: startTimeout)
            guard line.hasPrefix("PORT "), let port = Int(line.dropFirst(5)) else {
                throw FaultServerError.noPort("it printed \(line.debugDescription)")
            }
            self.port = port
        } catch {
            Self.terminate(process)
            throw error
        }
        self.process = process
    }

    deinit { stop() }

    /// `http://127.0.0.1:PORT` followed by `path` (which starts with `/`).
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Stops the server (SIGTERM, then SIGKILL if it lingers) and waits for it; idempotent.
    func stop() {
        let first = stopped.withLock { done in
            defer { done = true }
            return !done
        }
        if first { Self.terminate(process) }
    }

    /// One HTTP/1.0 request on a fresh connection; the server closes it after answering.
    func get(_ path: String, headers: [String: String] = [:], method: String = "GET",
             timeout: Duration = .seconds(10)) throws -> RawHTTP.Response {
        let lines = ["\(method) \(path) HTTP/1.0", "Host: 127.0.0.1:\(port)"]
            + headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        let request = lines.joined(separator: "\r\n") + "\r\n\r\n"
        guard let response = try RawHTTP.exchange(port: port, request, timeout: timeout).first else {
            throw FaultServerError.badResponse("no response to \(method) \(path)")
        }
        return response
    }

    /// What the server has counted since it started or since the last `resetCounts()`.
    func counts() throws -> Counts {
        let response = try get("/_counts")
        guard response.status == 200 else {
            throw FaultServerError.badResponse("GET /_counts answered \(response.status)")
        }
        return try JSONDecoder().decode(Counts.self, from: Data(response.body))
    }

    /// Forgets every count (and restarts the `/flaky` routes).
    func resetCounts() throws {
        let response = try get("/_reset", method: "POST")
        guard response.status == 200 else {
            throw FaultServerError.badResponse("POST /_reset answered \(response.status)")
        }
    }

    private static func terminate(_ process: Process) {
        if process.isRunning {
            process.terminate()
            let deadline = ContinuousClock.now + .seconds(5)
            while process.isRunning && ContinuousClock.now < deadline { usleep(5_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
    }

    /// `$THUMBGEN_PYTHON3` if set, else the first `python3` on `PATH`; nil if not executable.
    private static func python3() -> URL? {
        let environment = ProcessInfo.processInfo.environment
        let candidates: [URL]
        if let override = environment["THUMBGEN_PYTHON3"], !override.isEmpty {
            candidates = [URL(fileURLWithPath: override)]
        } else {
            candidates = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
                .map { URL(fileURLWithPath: String($0)).appendingPathComponent("python3") }
        }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// The first line the child writes to `descriptor`, waiting at most `timeout` in total.
    private static func firstLine(of descriptor: Int32, within timeout: Duration) throws -> String {
        let deadline = ContinuousClock.now + timeout
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while !bytes.contains(UInt8(ascii: "\n")) {
            let now = ContinuousClock.now
            guard now < deadline else {
                throw FaultServerError.noPort("no PORT line within \(timeout)")
            }
            let left = (deadline - now).components
            let milliseconds = Int32(clamping: left.seconds * 1000 + left.attoseconds / 1_000_000_000_000_000 + 1)
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, milliseconds) > 0 else { continue }
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                throw FaultServerError.noPort("fault_server.py exited before printing its port "
                                              + "(its error, if any, is in the test's standard error)")
            }
            bytes += buffer[0..<count]
        }
        let text = String(decoding: bytes, as: UTF8.self)
        return String(text.prefix { $0 != "\n" })
    }
}

extension FaultServer {
    /// What `GET /_counts` reports.
    struct Counts: Decodable, Sendable {
        /// Requests per path, query included (`/_counts` and `/_reset` are not counted).
        var requests: [String: Int] = [:]
        /// TCP connections that carried at least one counted request.
        var connections = 0
        /// Per path, how many requests carried `If-None-Match` or `If-Modified-Since`.
        var conditional: [String: Int] = [:]
        /// Per path, the `User-Agent` and `Accept-Encoding` of its latest request (if sent).
        var lastHeaders: [String: [String: String]] = [:]

        /// The requests for `path` (query included); 0 if none.
        subscript(path: String) -> Int { requests[path, default: 0] }

        /// Every counted request.
        var total: Int { requests.values.reduce(0, +) }

        private struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(from decoder: any Decoder) throws {
            // Paths start with "/", so the "_"-prefixed keys can share the object with them.
            let container = try decoder.container(keyedBy: Key.self)
            for key in container.allKeys {
                switch key.stringValue {
                case "_connections": connections = try container.decode(Int.self, forKey: key)
                case "_conditional": conditional = try container.decode([String: Int].self, forKey: key)
                case "_last_headers":
                    lastHeaders = try container.decode([String: [String: String]].self, forKey: key)
                case let name where name.hasPrefix("_"): continue
                case let path: requests[path] = try container.decode(Int.self, forKey: key)
                }
            }
        }
    }
}

/// Why the fault server could not be started or asked something.
enum FaultServerError: Error, CustomStringConvertible {
    case pythonMissing
    case noPort(String)
    case socket(String, Int32)
    case badResponse(String)

    var description: String {
        switch self {
        case .pythonMissing:
            "no executable python3 ($THUMBGEN_PYTHON3 if set, else on PATH); the HTTP tests "
                + "start fault_server.py with it. Install it with `scripts/setup python3`."
        case .noPort(let detail): "fault_server.py did not start: \(detail)"
        case .socket(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
        case .badResponse(let detail): "fault server: \(detail)"
        }
    }
}

/// HTTP/1.x over a plain blocking socket to 127.0.0.1: no client library between the tests
/// and the bytes, so truncations, resets and stalls are seen exactly as they happen.
enum RawHTTP {
    /// How the server ended the byte stream.
    enum Ending: Sendable, Equatable {
        /// An orderly close (FIN).
        case closed
        /// An abortive close (RST).
        case reset
        /// Nothing arrived for the whole timeout; the connection was still open.
        case timedOut
    }

    /// One response as it came over the wire.
    struct Response: Sendable {
        var status: Int
        /// Header values by lower-cased name (the last one wins when a name repeats).
        var headers: [String: String]
        /// The body bytes that arrived (fewer than Content-Length when the server cut it).
        var body: [UInt8]
        /// How the connection ended after this response.
        var ending: Ending

        /// The header `name` (any case), if present.
        func header(_ name: String) -> String? { headers[name.lowercased()] }

        /// The Content-Length the server promised, if any.
        var declaredLength: Int? { header("Content-Length").flatMap { Int($0) } }
    }

    /// Sends `request` (one or more pipelined requests) on a new connection to `port`, reads
    /// until the server closes, resets or goes quiet for `timeout`, and splits the responses.
    /// Bodies are delimited by Content-Length (chunked bodies are left undecoded).
    static func exchange(port: Int, _ request: String, timeout: Duration = .seconds(10)) throws -> [Response] {
        let (bytes, ending) = try roundTrip(port: port, Array(request.utf8), timeout: timeout)
        var responses: [Response] = []
        var rest = bytes[...]
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        while let end = rest.firstRange(of: separator) {
            let head = String(decoding: rest[..<end.lowerBound], as: UTF8.self)
            var lines = head.components(separatedBy: "\r\n")
            let statusLine = lines.removeFirst().split(separator: " ")
            guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
                throw FaultServerError.badResponse("not an HTTP status line: \(head.prefix(80))")
            }
            var headers: [String: String] = [:]
            for line in lines {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...]
                    .trimmingCharacters(in: .whitespaces)
            }
            rest = rest[end.upperBound...]
            let noBody = status < 200 || status == 204 || status == 304
            let length = noBody ? 0 : headers["content-length"].flatMap { Int($0) } ?? rest.count
            let body = rest.prefix(length)
            rest = rest.dropFirst(body.count)
            responses.append(Response(status: status, headers: headers, body: Array(body),
                                      ending: rest.isEmpty ? ending : .closed))
        }
        return responses
    }

    /// Connects, writes `request`, and reads every byte until close, reset or silence.
    private static func roundTrip(port: Int, _ request: [UInt8], timeout: Duration) throws -> ([UInt8], Ending) {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let sendFlags = Int32(MSG_NOSIGNAL)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        let sendFlags: Int32 = 0
        #endif
        guard descriptor >= 0 else { throw FaultServerError.socket("socket", errno) }
        defer { close(descriptor) }
        let parts = timeout.components
        var wait = timeval(tv_sec: .init(parts.seconds),
                           tv_usec: .init(parts.attoseconds / 1_000_000_000_000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))

        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(clamping: port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw FaultServerError.socket("connect to port \(port)", errno) }

        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes {
                send(descriptor, $0.baseAddress, $0.count, sendFlags)
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw FaultServerError.socket("send", errno) }
            sent += count
        }

        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count > 0 {
                received += buffer[0..<count]
                continue
            }
            if count == 0 { return (received, .closed) }
            switch errno {
            case EINTR: continue
            case ECONNRESET: return (received, .reset)
            case EAGAIN: return (received, .timedOut)  // SO_RCVTIMEO ran out
            case let code: throw FaultServerError.socket("recv", code)
            }
        }
    }
}
