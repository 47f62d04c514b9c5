#ifndef SECTIONAL_CPOSTGRES_SHIM_H
#define SECTIONAL_CPOSTGRES_SHIM_H
// libpq, PostgreSQL's C client: https://www.postgresql.org/docs/current/libpq.html
#include <libpq-fe.h>
#endif
