#ifndef SECTIONAL_COPENSSL_SHIM_H
#define SECTIONAL_COPENSSL_SHIM_H
// OpenSSL 3's libcrypto only (no libssl): digests, HMAC, signature verification, keys from
// parameters, big numbers and ECDSA signature encoding; key generation and public-key DER for tests.
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

// EVP_PKEY_PUBLIC_KEY is a macro built from other macros, which Swift does not import.
static inline int sectional_evp_pkey_public_key_selection(void) {
    return EVP_PKEY_PUBLIC_KEY;
}
#endif
