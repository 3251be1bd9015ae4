import CCurl

/// The libcurl options thumbgen sets on a transfer, under libcurl's own names (without
/// `CURLOPT_`), so that an option libcurl refuses can be named in the row's error.
enum CurlOption: String, CaseIterable, Sendable {
    case url = "URL"
    case protocolsStr = "PROTOCOLS_STR"
    case redirProtocolsStr = "REDIR_PROTOCOLS_STR"
    case protocols = "PROTOCOLS"
    case redirProtocols = "REDIR_PROTOCOLS"
    case followLocation = "FOLLOWLOCATION"
    case maxRedirs = "MAXREDIRS"
    case connectTimeoutMS = "CONNECTTIMEOUT_MS"
    case timeoutMS = "TIMEOUT_MS"
    case noProgress = "NOPROGRESS"
    case xferInfoFunction = "XFERINFOFUNCTION"
    case xferInfoData = "XFERINFODATA"
    case maxFileSizeLarge = "MAXFILESIZE_LARGE"
    case acceptEncoding = "ACCEPT_ENCODING"
    case userAgent = "USERAGENT"
    case noSignal = "NOSIGNAL"
    case errorBuffer = "ERRORBUFFER"
    case writeFunction = "WRITEFUNCTION"
    case writeData = "WRITEDATA"
    case headerFunction = "HEADERFUNCTION"
    case headerData = "HEADERDATA"
    case prereqFunction = "PREREQFUNCTION"
    case prereqData = "PREREQDATA"
    case httpHeader = "HTTPHEADER"
    // The remote cache's requests (`CurlRequest`) only.
    case customRequest = "CUSTOMREQUEST"
    case postFields = "POSTFIELDS"
    case postFieldSizeLarge = "POSTFIELDSIZE_LARGE"
    case lowSpeedLimit = "LOW_SPEED_LIMIT"
    case lowSpeedTime = "LOW_SPEED_TIME"
    case username = "USERNAME"
    case password = "PASSWORD"
    case httpAuth = "HTTPAUTH"
    case awsSigV4 = "AWS_SIGV4"
    case netrc = "NETRC"
    case netrcFile = "NETRC_FILE"

    /// The name libcurl's documentation gives it.
    var name: String { "CURLOPT_" + rawValue }

    /// libcurl's constant for it. `PROTOCOLS` and `REDIR_PROTOCOLS` are deprecated since 7.85
    /// in favour of the `_STR` forms, and used only where libcurl lacks those.
    var code: CURLoption {
        switch self {
        case .url: CURLOPT_URL
        case .protocolsStr: CURLOPT_PROTOCOLS_STR
        case .redirProtocolsStr: CURLOPT_REDIR_PROTOCOLS_STR
        case .protocols: CURLOPT_PROTOCOLS
        case .redirProtocols: CURLOPT_REDIR_PROTOCOLS
        case .followLocation: CURLOPT_FOLLOWLOCATION
        case .maxRedirs: CURLOPT_MAXREDIRS
        case .connectTimeoutMS: CURLOPT_CONNECTTIMEOUT_MS
        case .timeoutMS: CURLOPT_TIMEOUT_MS
        case .noProgress: CURLOPT_NOPROGRESS
        case .xferInfoFunction: CURLOPT_XFERINFOFUNCTION
        case .xferInfoData: CURLOPT_XFERINFODATA
        case .maxFileSizeLarge: CURLOPT_MAXFILESIZE_LARGE
        case .acceptEncoding: CURLOPT_ACCEPT_ENCODING
        case .userAgent: CURLOPT_USERAGENT
        case .noSignal: CURLOPT_NOSIGNAL
        case .errorBuffer: CURLOPT_ERRORBUFFER
        case .writeFunction: CURLOPT_WRITEFUNCTION
        case .writeData: CURLOPT_WRITEDATA
        case .headerFunction: CURLOPT_HEADERFUNCTION
        case .headerData: CURLOPT_HEADERDATA
        case .prereqFunction: CURLOPT_PREREQFUNCTION
        case .prereqData: CURLOPT_PREREQDATA
        case .httpHeader: CURLOPT_HTTPHEADER
        case .customRequest: CURLOPT_CUSTOMREQUEST
        case .postFields: CURLOPT_POSTFIELDS
        case .postFieldSizeLarge: CURLOPT_POSTFIELDSIZE_LARGE
        case .lowSpeedLimit: CURLOPT_LOW_SPEED_LIMIT
        case .lowSpeedTime: CURLOPT_LOW_SPEED_TIME
        case .username: CURLOPT_USERNAME
        case .password: CURLOPT_PASSWORD
        case .httpAuth: CURLOPT_HTTPAUTH
        case .awsSigV4: CURLOPT_AWS_SIGV4
        case .netrc: CURLOPT_NETRC
        case .netrcFile: CURLOPT_NETRC_FILE
        }
    }
}
