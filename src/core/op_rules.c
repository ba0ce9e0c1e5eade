#include "op_rules.h"

#include <pthread.h>
#include <stdio.h>

enum {
    C_INTEGER = 1 << 0,
    FORTRAN_INTEGER = 1 << 1,
    FLOATING = 1 << 2,
    LOGICAL = 1 << 3,
    COMPLEX = 1 << 4,
    BYTE = 1 << 5,
    PAIR = 1 << 6, /* MINLOC / MAXLOC value-index pairs */
};

typedef struct {
    MPI_Datatype type;
    unsigned category;
} type_category;

static type_category categories[80];
static int ncategories;

static void add(MPI_Datatype type, unsigned category)
{
    if (type != MPI_DATATYPE_NULL && ncategories < (int)(sizeof categories / sizeof categories[0]))
        categories[ncategories++] = (type_category){type, category};
}

static int mpi_accepts(MPI_Datatype type, MPI_Op op);

/* The predefined types the standard's list gives no op, that MPIs take anyway (probed below). */
static void probe_types_beyond_the_list(void)
{
    MPI_Datatype types[] = {MPI_CHAR, MPI_WCHAR, MPI_CHARACTER};
    MPI_Op ops[] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR,
                    MPI_MAXLOC, MPI_MINLOC};
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
        for (size_t o = 0; types[t] != MPI_DATATYPE_NULL && o < sizeof ops / sizeof ops[0]; o++)
            mpi_accepts(types[t], ops[o]);
}

void tdm_op_rules_init(void)
{
    if (ncategories)
        return;
    /* the common ones first: the lookup is linear */
    add(MPI_INT, C_INTEGER);
    add(MPI_DOUBLE, FLOATING);
    add(MPI_FLOAT, FLOATING);
    add(MPI_LONG, C_INTEGER);
    add(MPI_LONG_LONG, C_INTEGER);
    add(MPI_UNSIGNED, C_INTEGER);
    add(MPI_UNSIGNED_LONG, C_INTEGER);
    add(MPI_UNSIGNED_LONG_LONG, C_INTEGER);
    add(MPI_SHORT, C_INTEGER);
    add(MPI_UNSIGNED_SHORT, C_INTEGER);
    add(MPI_SIGNED_CHAR, C_INTEGER);
    add(MPI_UNSIGNED_CHAR, C_INTEGER);
    add(MPI_INT8_T, C_INTEGER);
    add(MPI_INT16_T, C_INTEGER);
    add(MPI_INT32_T, C_INTEGER);
    add(MPI_INT64_T, C_INTEGER);
    add(MPI_UINT8_T, C_INTEGER);
    add(MPI_UINT16_T, C_INTEGER);
    add(MPI_UINT32_T, C_INTEGER);
    add(MPI_UINT64_T, C_INTEGER);
    add(MPI_LONG_LONG_INT, C_INTEGER);
    add(MPI_INTEGER, FORTRAN_INTEGER);
    add(MPI_INTEGER1, FORTRAN_INTEGER); /* the optional sized Fortran types; null where absent */
    add(MPI_INTEGER2, FORTRAN_INTEGER);
    add(MPI_INTEGER4, FORTRAN_INTEGER);
    add(MPI_INTEGER8, FORTRAN_INTEGER);
    add(MPI_REAL4, FLOATING);
    add(MPI_REAL8, FLOATING);
    add(MPI_REAL16, FLOATING);
    add(MPI_COMPLEX8, COMPLEX);
    add(MPI_COMPLEX16, COMPLEX);
    add(MPI_COMPLEX32, COMPLEX);
    add(MPI_AINT, FORTRAN_INTEGER);
    add(MPI_OFFSET, FORTRAN_INTEGER);
    add(MPI_COUNT, FORTRAN_INTEGER);
    add(MPI_LONG_DOUBLE, FLOATING);
    add(MPI_REAL, FLOATING);
    add(MPI_DOUBLE_PRECISION, FLOATING);
    add(MPI_LOGICAL, LOGICAL);
    add(MPI_C_BOOL, LOGICAL);
    add(MPI_CXX_BOOL, LOGICAL);
    add(MPI_C_COMPLEX, COMPLEX);
    add(MPI_C_FLOAT_COMPLEX, COMPLEX);
    add(MPI_C_DOUBLE_COMPLEX, COMPLEX);
    add(MPI_C_LONG_DOUBLE_COMPLEX, COMPLEX);
    add(MPI_CXX_FLOAT_COMPLEX, COMPLEX);
    add(MPI_CXX_DOUBLE_COMPLEX, COMPLEX);
    add(MPI_CXX_LONG_DOUBLE_COMPLEX, COMPLEX);
    add(MPI_COMPLEX, COMPLEX);
    add(MPI_DOUBLE_COMPLEX, COMPLEX);
    add(MPI_BYTE, BYTE);
    add(MPI_FLOAT_INT, PAIR);
    add(MPI_DOUBLE_INT, PAIR);
    add(MPI_LONG_INT, PAIR);
    add(MPI_2INT, PAIR);
    add(MPI_SHORT_INT, PAIR);
    add(MPI_LONG_DOUBLE_INT, PAIR);
    add(MPI_2REAL, PAIR);
    add(MPI_2DOUBLE_PRECISION, PAIR);
    add(MPI_2INTEGER, PAIR);
    /* asked now, while TDM_Init runs alone: asking swaps the error handlers of MPI_COMM_WORLD and
     * MPI_COMM_SELF for a moment, which other threads would see */
    probe_types_beyond_the_list();
}

static unsigned category_of(MPI_Datatype type)
{
    for (int i = 0; i < ncategories; i++)
        if (categories[i].type == type)
            return categories[i].category;
    return 0;
}

typedef struct {
    MPI_Op op;
    const char *name;
    unsigned allowed;
} op_rule;

static op_rule rule_of(MPI_Op op)
{
    const unsigned integer = C_INTEGER | FORTRAN_INTEGER;
    if (op == MPI_MAX) return (op_rule){op, "MPI_MAX", integer | FLOATING};
    if (op == MPI_MIN) return (op_rule){op, "MPI_MIN", integer | FLOATING};
    if (op == MPI_SUM) return (op_rule){op, "MPI_SUM", integer | FLOATING | COMPLEX};
    if (op == MPI_PROD) return (op_rule){op, "MPI_PROD", integer | FLOATING | COMPLEX};
    if (op == MPI_LAND) return (op_rule){op, "MPI_LAND", C_INTEGER | LOGICAL};
    if (op == MPI_LOR) return (op_rule){op, "MPI_LOR", C_INTEGER | LOGICAL};
    if (op == MPI_LXOR) return (op_rule){op, "MPI_LXOR", C_INTEGER | LOGICAL};
    if (op == MPI_BAND) return (op_rule){op, "MPI_BAND", integer | BYTE};
    if (op == MPI_BOR) return (op_rule){op, "MPI_BOR", integer | BYTE};
    if (op == MPI_BXOR) return (op_rule){op, "MPI_BXOR", integer | BYTE};
    if (op == MPI_MAXLOC) return (op_rule){op, "MPI_MAXLOC", PAIR};
    if (op == MPI_MINLOC) return (op_rule){op, "MPI_MINLOC", PAIR};
    if (op == MPI_REPLACE) return (op_rule){op, "MPI_REPLACE", 0}; /* one-sided only */
    if (op == MPI_NO_OP) return (op_rule){op, "MPI_NO_OP", 0};
    return (op_rule){op, NULL, 0};
}

int tdm_op_is_predefined(MPI_Op op) { return rule_of(op).name != NULL; }

const char *tdm_op_name(MPI_Op op)
{
    const char *name = rule_of(op).name;
    return name ? name : "a user-defined op";
}

/*
 * The one predefined type a datatype is built from, found by decoding its constructors; MPI defines
 * predefined ops on derived datatypes only when they repeat a single predefined type.
 * Returns MPI_DATATYPE_NULL for a mixture.
 */
static int basic_type(MPI_Datatype type, MPI_Datatype *basic, int depth)
{
    int ni, na, nd, combiner, rc;
    if ((rc = MPI_Type_get_envelope(type, &ni, &na, &nd, &combiner)) != MPI_SUCCESS)
        return rc;
    if (combiner == MPI_COMBINER_NAMED) {
        *basic = type;
        return MPI_SUCCESS;
    }
    *basic = MPI_DATATYPE_NULL;
    if (depth > 32 || nd > 64 || ni > 1 << 20 || na > 1 << 20)
        return MPI_SUCCESS; /* treat absurd nesting as unknown */
    int ints[ni > 0 ? ni : 1];
    MPI_Aint addrs[na > 0 ? na : 1];
    MPI_Datatype types[nd > 0 ? nd : 1];
    if ((rc = MPI_Type_get_contents(type, ni, na, nd, ints, addrs, types)) != MPI_SUCCESS)
        return rc;
    MPI_Datatype found = MPI_DATATYPE_NULL;
    int mixed = 0;
    for (int i = 0; i < nd && rc == MPI_SUCCESS; i++) {
        MPI_Datatype sub = MPI_DATATYPE_NULL;
        rc = basic_type(types[i], &sub, depth + 1);
        if (sub == MPI_DATATYPE_NULL || (found != MPI_DATATYPE_NULL && sub != found))
            mixed = 1;
        found = sub;
    }
    for (int i = 0; i < nd; i++) { /* the contents of derived types are new handles to release */
        int ni2, na2, nd2, c2;
        if (MPI_Type_get_envelope(types[i], &ni2, &na2, &nd2, &c2) == MPI_SUCCESS &&
            c2 != MPI_COMBINER_NAMED)
            MPI_Type_free(&types[i]);
    }
    if (rc == MPI_SUCCESS && !mixed)
        *basic = found;
    return rc;
}

static const char *name_of(MPI_Datatype type, char *buf)
{
    int len = 0;
    if (MPI_Type_get_name(type, buf, &len) != MPI_SUCCESS || len == 0)
        return "a derived datatype";
    return buf;
}

/*
 * Beyond the standard's list: MPI libraries accept more pairs (Open MPI and MPICH take MPI_SUM on
 * MPI_CHAR, which the OSU benchmarks use), and Tandem accepts what the MPI underneath accepts. MPI is
 * asked once per (predefined type, op) by reducing one element with MPI_Reduce_local, errors returned;
 * the answer is the error class it gave (MPI_SUCCESS: accepted). Only types the list gives no op at all
 * (MPI_CHAR, MPI_CHARACTER, MPI_WCHAR...) are asked: for the others both MPIs refuse what the list
 * refuses, and MPICH 4.0 aborts in MPI_Reduce_local on some of them (MPI_LAND on MPI_DOUBLE)
 * instead of returning an error. The usual such types are asked at TDM_Init; others when first used.
 */
typedef struct {
    MPI_Datatype type;
    MPI_Op op;
    int error_class;
} probed_pair;

static probed_pair probed[64]; /* the types probed at TDM_Init x 12 ops, and room for a few more */
static int nprobed;
static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;

static int ask_mpi(MPI_Datatype type, MPI_Op op)
{
    MPI_Aint lb, extent;
    if (MPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS || lb != 0 || extent > 64)
        return MPI_ERR_OP;
    _Alignas(16) unsigned char in[64] = {0}, inout[64] = {0};
    /* a refusal goes to MPI_COMM_WORLD's handler (MPI-3) or MPI_COMM_SELF's (MPI-4): both return */
    MPI_Errhandler world, self;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &world);
    MPI_Comm_get_errhandler(MPI_COMM_SELF, &self);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int rc = MPI_Reduce_local(in, inout, 1, type, op);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, world);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, self);
    MPI_Errhandler_free(&world);
    MPI_Errhandler_free(&self);
    int error_class = MPI_ERR_OP;
    if (rc == MPI_SUCCESS || MPI_Error_class(rc, &error_class) == MPI_SUCCESS)
        return rc == MPI_SUCCESS ? MPI_SUCCESS : error_class;
    return MPI_ERR_OP;
}

static int mpi_accepts(MPI_Datatype type, MPI_Op op)
{
    pthread_mutex_lock(&probe_lock);
    int error_class = -1;
    for (int i = 0; i < nprobed && error_class < 0; i++)
        if (probed[i].type == type && probed[i].op == op)
            error_class = probed[i].error_class;
    if (error_class < 0) {
        error_class = ask_mpi(type, op);
        if (nprobed < (int)(sizeof probed / sizeof probed[0]))
            probed[nprobed++] = (probed_pair){type, op, error_class};
    }
    pthread_mutex_unlock(&probe_lock);
    return error_class;
}

int tdm_op_check(MPI_Op op, MPI_Datatype type, MPI_Datatype *derived_basic, char *why, int why_len)
{
    op_rule rule = rule_of(op);
    *derived_basic = MPI_DATATYPE_NULL;
    why[0] = '\0';
    if (!rule.name)
        return MPI_SUCCESS; /* user-defined */
    MPI_Datatype basic = type;
    char tname[MPI_MAX_OBJECT_NAME];
    unsigned category = category_of(type);
    if (!category) {
        int rc = basic_type(type, &basic, 0);
        if (rc != MPI_SUCCESS)
            return rc;
        if (basic == MPI_DATATYPE_NULL) {
            snprintf(why, (size_t)why_len, "%s is not defined for a datatype that mixes several basic types",
                     rule.name);
            return MPI_ERR_OP;
        }
        category = category_of(basic);
        int ni, na, nd, combiner;
        if (MPI_Type_get_envelope(type, &ni, &na, &nd, &combiner) == MPI_SUCCESS &&
            combiner != MPI_COMBINER_NAMED)
            *derived_basic = basic;
    }
    if (category & rule.allowed)
        return MPI_SUCCESS;
    if (rule.allowed == 0) {
        snprintf(why, (size_t)why_len, "%s is for one-sided operations, not collectives", rule.name);
        return MPI_ERR_OP;
    }
    int error_class = category ? MPI_ERR_OP : mpi_accepts(basic, op);
    if (error_class != MPI_SUCCESS)
        snprintf(why, (size_t)why_len, "%s is not defined for datatype %s", rule.name, name_of(basic, tname));
    return error_class;
}
