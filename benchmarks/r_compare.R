# R side of benchmarks/r_compare.py: R bnclassify's wrappers and tan_cl on folds given by Python.
#
# Usage: Rscript benchmarks/r_compare.R WORKDIR DATASET [--same-inner] [LEARNER ...]
#
# Reads WORKDIR/DATASET.csv (every column categorical, the class last, missing cells
# empty), WORKDIR/DATASET.levels.json (each column's categories in Python's order) and
# WORKDIR/DATASET.folds.csv (the outer test fold of each row, 0-based). For each outer
# fold and learner it fits R's structure search on the training rows with k = 5 inner
# folds, epsilon = 0.01 and smooth = 1, fits the parameters with lp(smooth = 1) and
# predicts the test rows. Writes WORKDIR/DATASET.LEARNER.r.json: per fold the accuracy,
# the CLL (sum of log2 P(y | x)), the fit time, the arcs and the inner scores; and
# WORKDIR/DATASET.tan_cl.r.json: tan_cl's arcs on all the rows.
#
# With --same-inner the search's inner folds are not R's random ones but those of
# WORKDIR/DATASET.inner.csv (one column per outer fold: the inner fold of each training
# row, the library's own draw), through R's partition_dataset; the outputs are then
# DATASET.LEARNER.same.r.json. Everything else in the search is R's code.
suppressPackageStartupMessages({
  library(bnclassify)
  library(jsonlite)
})

args <- commandArgs(trailingOnly = TRUE)
workdir <- args[[1]]
name <- args[[2]]
same_inner <- "--same-inner" %in% args
args <- setdiff(args, "--same-inner")
learners <- if (length(args) > 2) args[-(1:2)] else
  c("tan_hc", "tan_hcsp", "fssj", "bsej", "kdb", if (!same_inner) "tan_cl")
suffix <- if (same_inner) ".same.r.json" else ".r.json"
if (same_inner) {
  inner <- read.csv(file.path(workdir, paste0(name, ".inner.csv")), check.names = FALSE)
  current_inner <- NULL
  assignInNamespace("partition_dataset", function(dataset, class, k) {
    stopifnot(length(current_inner) == nrow(dataset), k == length(unique(current_inner)))
    split(seq_len(nrow(dataset)), current_inner)
  }, "bnclassify")
}

raw <- read.csv(file.path(workdir, paste0(name, ".csv")), colClasses = "character",
                na.strings = "", check.names = FALSE)
levels_of <- fromJSON(file.path(workdir, paste0(name, ".levels.json")))
data <- as.data.frame(lapply(setNames(nm = colnames(raw)), function(col)
  factor(raw[[col]], levels = levels_of[[col]])), check.names = FALSE)
class <- colnames(data)[ncol(data)]
folds <- read.csv(file.path(workdir, paste0(name, ".folds.csv")))$fold

# (parent, child) arcs between features, from the exported families()
arcs_of <- function(x) {
  fams <- families(x)
  arcs <- lapply(setdiff(names(fams), class), function(child)
    lapply(setdiff(fams[[child]][-1], class), function(parent) c(parent, child)))
  arcs <- unlist(arcs, recursive = FALSE)
  if (is.null(arcs)) list() else arcs
}

learn <- function(learner, train) {
  switch(learner,
    tan_hc = tan_hc(class, train, k = 5, epsilon = 0.01, smooth = 1),
    tan_hcsp = tan_hcsp(class, train, k = 5, epsilon = 0.01, smooth = 1),
    fssj = fssj(class, train, k = 5, epsilon = 0.01, smooth = 1),
    bsej = bsej(class, train, k = 5, epsilon = 0.01, smooth = 1),
    kdb = kdb(class, train, k = 5, kdbk = 2, epsilon = 0.01, smooth = 1),
    tan_cl = tan_cl(class, train, score = "loglik"),
    stop("unknown learner ", learner))
}

for (learner in setdiff(learners, "tan_cl")) {
  out <- list()
  for (f in sort(unique(folds))) {
    train <- data[folds != f, , drop = FALSE]
    test <- data[folds == f, , drop = FALSE]
    if (same_inner) {
      current_inner <- inner[[as.character(f)]][folds != f]
    }
    set.seed(1000 + f)
    start <- proc.time()[["elapsed"]]
    dag <- learn(learner, train)
    model <- lp(dag, train, smooth = 1)
    fit_s <- proc.time()[["elapsed"]] - start
    prob <- predict(model, test, prob = TRUE)
    truth <- as.character(test[[class]])
    best <- colnames(prob)[max.col(prob, ties.method = "first")]
    p_true <- prob[cbind(seq_len(nrow(test)), match(truth, colnames(prob)))]
    out[[length(out) + 1]] <- list(
      fold = f, accuracy = mean(best == truth), cll = sum(log2(p_true)), fit_s = fit_s,
      features = I(features(dag)), arcs = arcs_of(dag),
      inner_scores = I(dag$.greedy_scores_log))
    cat(name, learner, "fold", f, "acc", round(mean(best == truth), 4),
        "time", round(fit_s, 1), "\n")
  }
  write_json(out, file.path(workdir, paste0(name, ".", learner, suffix)),
             auto_unbox = TRUE, digits = NA)
}

if ("tan_cl" %in% learners) {
  dag <- learn("tan_cl", data)
  write_json(list(arcs = arcs_of(dag)),
             file.path(workdir, paste0(name, ".tan_cl.r.json")), auto_unbox = TRUE)
}
cat("R", R.version$major, R.version$minor, "bnclassify",
    as.character(utils::packageVersion("bnclassify")), "\n")
