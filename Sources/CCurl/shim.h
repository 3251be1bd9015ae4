// The only door from Swift into libcurl.
//
// curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic, which Swift cannot
// call; each shim fixes one argument type and returns libcurl's result, which the Swift side
// checks for every option (CurlTransfer, CurlMulti: an option an older libcurl lacks must not
// pass silently). Callbacks are plain C function pointers that receive the transfer's context
// pointer. Policy lives in Swift (Sources/Thumbgen/Fetching).
#ifndef THUMBGEN_CCURL_SHIM_H
#define THUMBGEN_CCURL_SHIM_H

#include <curl/curl.h>

typedef size_t (*tg_curl_data_callback)(char *data, size_t size, size_t count, void *context);
typedef int (*tg_curl_prereq_callback)(void *context, char *connected_ip, char *local_ip,
                                       int connected_port, int local_port);
typedef int (*tg_curl_progress_callback)(void *context, curl_off_t dltotal, curl_off_t dlnow,
                                         curl_off_t ultotal, curl_off_t ulnow);

static inline CURLcode tg_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode tg_curl_set_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode tg_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode tg_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode tg_curl_set_data_callback(CURL *handle, CURLoption option,
                                                 tg_curl_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}
static inline CURLcode tg_curl_set_prereq_callback(CURL *handle, tg_curl_prereq_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_PREREQFUNCTION, callback);
}
static inline CURLcode tg_curl_set_progress_callback(CURL *handle,
                                                     tg_curl_progress_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}
static inline CURLcode tg_curl_get_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode tg_curl_get_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLMcode tg_curl_multi_set_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

#endif
