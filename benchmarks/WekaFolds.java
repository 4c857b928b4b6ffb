// The fold driver of benchmarks/weka.py: fits a Weka classifier on each fold's train.arff and
// writes the class distribution of every row of its test.arff, at full precision.
//
// Run in Java's source-file mode (nothing is built or kept):
//
//     java -cp weka.jar benchmarks/WekaFolds.java PREPARE CLASSNAME "OPTIONS" DIR [DIR ...]
//
// PREPARE is "none" or a comma-separated list of "discretize" and "impute". With
// "discretize", a classifier whose capabilities refuse numeric attributes (AODE, AODEsr,
// WAODE, HNB) is wrapped, when the training file has a numeric attribute, in
// weka.classifiers.meta.FilteredClassifier with weka.filters.supervised.attribute.Discretize
// at its defaults (Fayyad and Irani's MDL, learnt on the training fold), as a Weka user
// would run it. With "impute", a classifier that refuses missing values (AODEsr, WAODE,
// HNB) gets them replaced first by weka.filters.unsupervised.attribute.ReplaceMissingValues
// (the training fold's modes and means) when either file has one; without it, such a
// classifier fails on that set. OPTIONS is one string, split
// by Weka's own rules (Utils.splitOptions), so nested options quote as on Weka's command
// line. Each DIR gets proba.csv (one line per test row, one probability per class, in the
// header's order) and time.txt (fit and predict seconds of wall clock, then of the
// thread's CPU). Written for Weka 3.6 (weka.classifiers.Classifier.forName).

import java.io.File;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import weka.classifiers.Classifier;
import weka.classifiers.meta.FilteredClassifier;
import weka.core.Capabilities;
import weka.core.Instances;
import weka.core.Utils;
import weka.core.converters.ConverterUtils.DataSource;
import weka.filters.Filter;
import weka.filters.MultiFilter;
import weka.filters.supervised.attribute.Discretize;
import weka.filters.unsupervised.attribute.ReplaceMissingValues;

public class WekaFolds {
  public static void main(String[] args) throws Exception {
    if (args.length < 4) {
      System.err.println("usage: WekaFolds none|discretize,impute CLASSNAME \"OPTIONS\" DIR...");
      System.exit(2);
    }
    java.util.List<String> prepare = java.util.Arrays.asList(args[0].split(","));
    ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
    for (int d = 3; d < args.length; d++) {
      File dir = new File(args[d]);
      Instances train = DataSource.read(new File(dir, "train.arff").getPath());
      Instances test = DataSource.read(new File(dir, "test.arff").getPath());
      train.setClassIndex(train.numAttributes() - 1);
      test.setClassIndex(test.numAttributes() - 1);
      Classifier model = Classifier.forName(args[1], Utils.splitOptions(args[2]));
      Capabilities can = model.getCapabilities();
      java.util.List<Filter> filters = new java.util.ArrayList<>();
      if (prepare.contains("impute") && (hasMissing(train) || hasMissing(test))
          && !can.handles(Capabilities.Capability.MISSING_VALUES)) {
        filters.add(new ReplaceMissingValues());
      }
      if (prepare.contains("discretize") && hasNumeric(train)
          && !can.handles(Capabilities.Capability.NUMERIC_ATTRIBUTES)) {
        filters.add(new Discretize());
      }
      if (!filters.isEmpty()) {
        MultiFilter chain = new MultiFilter();
        chain.setFilters(filters.toArray(new Filter[0]));
        FilteredClassifier wrapped = new FilteredClassifier();
        wrapped.setFilter(chain);
        wrapped.setClassifier(model);
        model = wrapped;
      }
      long wall = System.nanoTime(), thread = cpu.getCurrentThreadCpuTime();
      model.buildClassifier(train);
      long fitWall = System.nanoTime() - wall, fitThread = cpu.getCurrentThreadCpuTime() - thread;
      int classes = test.numClasses();
      double[][] proba = new double[test.numInstances()][];
      wall = System.nanoTime();
      thread = cpu.getCurrentThreadCpuTime();
      for (int r = 0; r < test.numInstances(); r++) {
        proba[r] = model.distributionForInstance(test.instance(r));
      }
      long predictWall = System.nanoTime() - wall;
      long predictThread = cpu.getCurrentThreadCpuTime() - thread;
      try (PrintWriter out = new PrintWriter(new File(dir, "proba.csv"))) {
        for (double[] row : proba) {
          StringBuilder line = new StringBuilder();
          for (int c = 0; c < classes; c++) {
            line.append(c == 0 ? "" : ",").append(Double.toString(row[c]));
          }
          out.println(line);
        }
      }
      try (PrintWriter out = new PrintWriter(new File(dir, "time.txt"))) {
        out.println(fitWall / 1e9 + " " + predictWall / 1e9 + " " + fitThread / 1e9 + " "
            + predictThread / 1e9);
      }
    }
  }

  static boolean hasMissing(Instances data) {
    for (int j = 0; j < data.numAttributes(); j++) {
      if (j != data.classIndex() && data.attributeStats(j).missingCount > 0) {
        return true;
      }
    }
    return false;
  }

  static boolean hasNumeric(Instances data) {
    for (int j = 0; j < data.numAttributes(); j++) {
      if (j != data.classIndex() && data.attribute(j).isNumeric()) {
        return true;
      }
    }
    return false;
  }
}
