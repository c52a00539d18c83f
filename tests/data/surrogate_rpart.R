# The rpart reference numbers pinned in tests/estimators/test_cart_surrogate.py.
#
# Run from this folder:  Rscript surrogate_rpart.R
# Produced with R 4.2.2 and rpart 4.1.19 (Debian: apt-get install r-base-core r-cran-rpart).
# The tests never need R: they hold the numbers this script prints.
#
# surrogate_table.csv is a fixed synthetic table (80 rows, missing values in every
# feature) written once by this Python snippet (numpy 2, pandas):
#
#   rng = np.random.default_rng(20240611); n = 80
#   x0 = rng.integers(0, 100, n) / 10
#   y = ((x0 + rng.normal(0, 1.5, n)) > 5).astype(int)
#   x1 = np.round(x0 + rng.normal(0, 1.0, n), 1)
#   x2 = np.round(10 - x0 + rng.normal(0, 2.0, n), 1)
#   c3 = np.array(list("abcd"))[np.minimum((x0 / 2.5).astype(int), 3)]
#   flip = rng.random(n) < 0.2; c3[flip] = rng.choice(list("abcd"), flip.sum())
#   x4 = np.round(rng.normal(0, 1, n), 2)
#   yr = np.round(2 * x0 + rng.normal(0, 2, n), 2)
#   df = pd.DataFrame(dict(x0=x0, x1=x1, x2=x2, c3=c3, x4=x4,
#                          y=np.where(y == 1, "yes", "no"), yr=yr))
#   for col, k in [("x0", 12), ("x1", 8), ("x2", 6), ("c3", 6), ("x4", 5)]:
#       idx = rng.choice(n, k, replace=False)
#       df.loc[idx, col] = np.nan if col != "c3" else None
#   df.to_csv("surrogate_table.csv", index=False, na_rep="NA")
#
# treelearn's counterpart: CARTClassifier / CARTRegressor(missing="surrogate",
# max_surrogates=5, max_depth=2, min_samples_split=10, min_samples_leaf=3).
# cp = -1 so that no split is refused for its complexity (treelearn has no cp).

library(rpart)
d <- read.csv("surrogate_table.csv", stringsAsFactors = TRUE)
ctl <- rpart.control(cp = -1, minsplit = 10, minbucket = 3, maxdepth = 2,
                     usesurrogate = 2, maxsurrogate = 5, surrogatestyle = 0,
                     maxcompete = 0, xval = 0)
form <- ~ x0 + x1 + x2 + c3 + x4

show <- function(fit) {
  summary(fit, cp = -2)
  # Full precision: per node its primary split then its surrogates, in rank order.
  # ncat -1: "x < index" goes left, +1: it goes right; improve is the agreement for
  # a surrogate; adj its adjusted agreement; count the rows it routed (primary:
  # the rows that know its feature).
  s <- fit$splits
  cat("\nsplits (full precision):\n")
  for (i in seq_len(nrow(s))) {
    cat(sprintf("%-3s count=%3d ncat=%2d improve=%.10g index=%.10g adj=%.10g\n",
                rownames(s)[i], s[i, "count"], s[i, "ncat"], s[i, "improve"],
                s[i, "index"], s[i, "adj"]))
  }
  cat("csplit (1 left, 3 right, 2 absent):\n")
  print(fit$csplit)
  cat("frame n:\n")
  print(fit$frame[, c("var", "n")])
}

fit_class <- rpart(update(form, y ~ .), data = d, method = "class", control = ctl)
show(fit_class)
fit_anova <- rpart(update(form, yr ~ .), data = d, method = "anova", control = ctl)
show(fit_anova)

# Prediction with the primary feature of the root (x1) missing in every row:
# rows go down by x1's surrogates (x2, x0, c3), then the majority direction.
nd <- d
nd$x1 <- NA_real_
cat("class predicted for every row with x1 missing:\n")
cat(paste(as.character(predict(fit_class, nd, type = "class")), collapse = ","), "\n")
cat("anova predicted for every row with x1 missing:\n")
cat(paste(sprintf("%.10g", predict(fit_anova, nd)), collapse = ","), "\n")
