/*
 * The reference for tandem-cg: PETSc's KSP on the same problem, the 5-point Laplacian of an m x n grid
 * (Dirichlet), b = A 1, x0 = 0, assembled as PETSc's KSP example ex2 does. The solver and its options
 * come from the command line (-ksp_type cg|pipecg -pc_type jacobi -ksp_norm_type unpreconditioned
 * -ksp_rtol R). Prints, as tandem-cg does: iterations K relres R error E, E = ||x - 1||_2.
 */
#include <petscksp.h>

int main(int argc, char **argv)
{
    PetscCall(PetscInitialize(&argc, &argv, NULL, "tandem-cg's reference: -m M -n N and KSP options"));
    PetscInt m = 8, n = 7, start, end, its;
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-m", &m, NULL));
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
    Mat A;
    PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
    PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, m * n, m * n));
    PetscCall(MatSetFromOptions(A));
    PetscCall(MatMPIAIJSetPreallocation(A, 5, NULL, 5, NULL));
    PetscCall(MatSeqAIJSetPreallocation(A, 5, NULL));
    PetscCall(MatGetOwnershipRange(A, &start, &end));
    for (PetscInt row = start; row < end; row++) {
        PetscInt i = row / n, j = row - i * n, cols[5], k = 0;
        PetscScalar values[5];
        if (i > 0)
            cols[k] = row - n, values[k++] = -1;
        if (i < m - 1)
            cols[k] = row + n, values[k++] = -1;
        if (j > 0)
            cols[k] = row - 1, values[k++] = -1;
        if (j < n - 1)
            cols[k] = row + 1, values[k++] = -1;
        cols[k] = row, values[k++] = 4;
        PetscCall(MatSetValues(A, 1, &row, k, cols, values, INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    Vec u, b, x;
    PetscCall(MatCreateVecs(A, &u, &b));
    PetscCall(VecDuplicate(b, &x));
    PetscCall(VecSet(u, 1));
    PetscCall(MatMult(A, u, b));
    KSP ksp;
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(KSPSolve(ksp, b, x));
    PetscReal rnorm, bnorm, error;
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(KSPGetResidualNorm(ksp, &rnorm));
    PetscCall(VecNorm(b, NORM_2, &bnorm));
    PetscCall(VecAXPY(x, -1, u));
    PetscCall(VecNorm(x, NORM_2, &error));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "iterations %d relres %e error %e\n", (int)its, (double)(rnorm / bnorm),
                          (double)error));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&u));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&x));
    PetscCall(MatDestroy(&A));
    PetscCall(PetscFinalize());
    return 0;
}
