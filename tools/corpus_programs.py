"""Run a second corpus of public programs (not autograd's own examples) with srcad.

    python tools/corpus_programs.py [--seconds 30] [--pythonpath DIR] [--only NAME ...]

Each program is a file of a public repository that takes derivatives with autograd, read at
run time from a fetched copy (``fetch github:OWNER/NAME``; ``/work/.mirror/OWNER+NAME/repo``),
never copied into this repository. The repository's committed files are extracted into a
temporary folder (so a program finds its data files) and the program runs there under
``tools/example_shim.py``: only its ``autograd`` imports are pointed at NumPy, SciPy and srcad,
and every derivative's first calls are checked against finite differences. A notebook runs
as its code cells in order, a Quarto document (``.qmd``) as its Python cells, a script
written for IPython (``%`` magics) as its cells; a package's pytest module as its test
functions (``tools/pytest_functions.py``, through the shim); MNIST's files
that a snapshot lacks (it leaves out files of 4 MiB and more) are made up. The outcomes are
those of ``tools/example_programs.py`` (PASS, WRONG, REFUSED, CRASH, ...). ``--engine autograd``
runs them with autograd itself instead (installed; only the plotting stand-ins of the shim),
to tell a program's own crash from srcad's.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from example_programs import fake_mnist, run_one  # noqa: E402

MIRRORS = "/work/.mirror"
MLR = "jermwatt/machine_learning_refined"
PYCSE = "pycse-jb/pycse___python_computations_in_science_and_engineering/book/"
AM207 = "onefishy/am207_fall19_projects"
MLR_OLD = "jermwatt/mlrefined"
GPP = "dtak/MappingGPPstoBNNS"
RAISSI_DL = "maziarraissi/DeepLearningTutorial"
SHIRISH = "shirishbahirat/pytorch"
KGOF = "wittawatj/kernel-gof"
SURP = "derrynknife/SurPyval"
SURP_T = "surpyval/tests/"
#: (repository, path of the program in it): programs from public projects' folders
CORPUS = [
    ("imyoungmin/DENN", "ODE.py"),
    ("imyoungmin/DENN", "PDE.py"),
    ("cpsource/PlayWithAI", "finance/WMT/autograd/zautograd.py"),
    # gradient estimators for discrete variables (REINFORCE, concrete, REBAR, RELAX): estimators
    # built from elementwise_grad, value_and_grad and make_vjp of sampled objectives
    ("duvenaud/relax", "relax-autograd/demo_concrete.py"),
    ("duvenaud/relax", "relax-autograd/demo_rebar.py"),
    ("duvenaud/relax", "relax-autograd/demo_reinforce.py"),
    ("duvenaud/relax", "relax-autograd/demo_relax.py"),
    ("duvenaud/relax", "relax-autograd/tests.py"),
    # black-box variational inference as a base class with abstract model methods
    ("jamesvuc/BBVI", "Examples/BBVI_test1.py"),
    ("jamesvuc/BBVI", "Examples/BBVI_test2.py"),
    ("jamesvuc/BBVI", "Examples/BBVI_test3.py"),
    # autograd's README example written against a minimal autograd of the same interface
    ("mattjj/autodidact", "examples/tanh.py"),
    # a textbook's notebooks (code cells in order, IPython magics left out): gradient descent,
    # Newton's method, regressions, classifiers and networks on its own optimisers and data
    (MLR, "notes/3_First_order_methods/3_5_Descent.ipynb"),
    (MLR, "notes/3_First_order_methods/A_2_Momentum.ipynb"),
    (MLR, "notes/3_First_order_methods/A_3_Normalized.ipynb"),
    (MLR, "notes/4_Second_order_methods/4_3_Newtons.ipynb"),
    (MLR, "notes/5_Linear_regression/5_2_Least.ipynb"),
    (MLR, "notes/5_Linear_regression/5_3_Absolute.ipynb"),
    (MLR, "notes/10_Nonlinear_intro/10_2_Regression.ipynb"),
    # more of its chapters: automatic differentiation by hand, mini-batches, weighted and
    # multi-output regression, nonlinear classification, feature scaling, quasi-Newton
    (MLR, "notes/3_First_order_methods/3_6_Problems.ipynb"),
    (MLR, "notes/3_First_order_methods/A_5_Minibatch.ipynb"),
    (MLR, "notes/3_First_order_methods/B_10_Automatic.ipynb"),
    (MLR, "notes/4_Second_order_methods/A_8_Nonconvex.ipynb"),
    (MLR, "notes/4_Second_order_methods/A_9_Quasi.ipynb"),
    (MLR, "notes/5_Linear_regression/5_5_Weighted.ipynb"),
    (MLR, "notes/5_Linear_regression/5_6_Multi.ipynb"),
    (MLR, "notes/5_Linear_regression/5_7_Probabilistic.ipynb"),
    (MLR, "notes/9_Feature_engineer_select/9_2_Histogram.ipynb"),
    (MLR, "notes/9_Feature_engineer_select/9_3_Scaling.ipynb"),
    (MLR, "notes/10_Nonlinear_intro/10_3_MultReg.ipynb"),
    (MLR, "notes/10_Nonlinear_intro/10_4_Twoclass.ipynb"),
    (MLR, "notes/10_Nonlinear_intro/10_5_Multiclass.ipynb"),
    (MLR, "notes/10_Nonlinear_intro/10_6_Unsupervised.ipynb"),
    # autograd's own examples in a subfolder (tools/example_programs.py runs the top folder's):
    # a smoke simulation optimised through 100 steps of semi-Lagrangian advection and a
    # pressure solve, and a wing shape optimised through a wind-tunnel simulation
    ("HIPS/autograd", "examples/fluidsim/fluidsim.py"),
    ("HIPS/autograd", "examples/fluidsim/wing.py"),
    # a learner's scripts: autograd's README example and a regression model
    ("richardmyu/python-demo", "my-collect/feature/test-autograd/test-autograd.py"),
    ("richardmyu/python-demo",
     "my-collect/feature/test-autograd/test-autograd-regression-model.py"),
    # (round 9) an SIR epidemic model's parameters fitted by gradient descent through the
    # sensitivity equations, with jacobians of the right-hand side inside scipy's odeint
    ("John-Bowersox/ODE-Parameter-Estimation-with-Gradient-Descent", "SIR ODE Estimation.py"),
    # a course's exercises: gradients of matrix expressions checked against hand derivatives,
    # derivatives of scalar functions, constrained optimisation with penalties
    ("ezixuan27/MachineLearningClasses",
     "Intro_to_ML/lecture_4/in_class_exercise/final_practice_probs.py"),
    ("ezixuan27/MachineLearningClasses", "math_foundation/lecture_14/derivatives_solution.py"),
    ("ezixuan27/MachineLearningClasses", "Intro_to_ML/lecture_6/L4-Constraints.ipynb"),
    # a blog's notebooks: linear regression by gradient descent and Adagrad, matrix
    # factorisation, an XOR network with ReLUs, a GP's hyperparameters by gradient descent
    ("nipunbatra/blog", "posts/2017-06-15-linear-regression-prior.ipynb"),
    ("nipunbatra/blog", "posts/2017-08-12-linear-regression-adagrad-vs-gd.ipynb"),
    ("nipunbatra/blog", "posts/2017-08-13-mf-autograd-adagrad.ipynb"),
    ("nipunbatra/blog", "posts/2020-02-28-xor-relu-vector.ipynb"),
    ("nipunbatra/blog", "posts/2020-03-29-param-learning.ipynb"),
    ("nipunbatra/blog", "posts/2021-09-03-param-learning-sgd.ipynb"),
    # a textbook's chapters (Python computations in science and engineering): autograd's
    # applications (derivatives, sensitivities, ODEs, optimisation), neural networks by hand
    ("jkitchin/pycse", PYCSE + "20-autograd-applications.ipynb"),
    ("jkitchin/pycse", PYCSE + "21-machine-learning.ipynb"),
    ("jkitchin/pycse", PYCSE + "22-ml-2.ipynb"),
    # a course's student projects (Harvard AM207, fall 2019), several authors: stochastic-
    # gradient and wormhole HMC samplers, subspace inference for Bayesian networks,
    # normalizing flows, error bounds of variational inference, Bayesian networks' uncertainty
    (AM207, "stochastic_gradient_hmc/sghmc_1/Stochastic_Gradient_HMC.ipynb"),
    (AM207, "stochastic_gradient_hmc/sghmc_2/"
            "landrinpaulemile_312454_9122437_project SGHMC.ipynb"),
    (AM207, "stochastic_gradient_hmc/sghmc_3/"
            "Stochastic_Gradient_HMC_Linear_Regression_Example.ipynb"),
    (AM207, "stochastic_gradient_hmc/sghmc_3/"
            "Stochastic_Gradient_HMC_Logistic_Regression_Example.ipynb"),
    (AM207, "wormhole_hmc/wongalexander_140170_9129284_Project (2).ipynb"),
    (AM207, "subspace_inference/subspace_inference_2/am207_subspace_inference.ipynb"),
    (AM207, "normalizing_flow/normalizing_flow_2/scripts/flows.py"),
    (AM207, "normalizing_flow/normalizing_flow_3/src/learning_simple_gaussian.py"),
    (AM207, "practical_bounds/Final_Report.ipynb"),
    (AM207, "what_uncertainties/what_uncertainties_2/"
            "xushangda_159792_9114507_Sun,_Xu_AM_207_Final_Project.ipynb"),
    (AM207, "normalizing_flow/normalizing_flow_2/AM207_Fall_'19_Final_Project.ipynb"),
    (AM207, "normalizing_flow/normalizing_flow_3/Experimentation.ipynb"),
    (AM207, "normalizing_flow/normalizing_flow_3/notebooks/2_basic_optimization/"
            "1_basic_optimization.ipynb"),
    (AM207, "subspace_inference/subspace_inference_3/final_writeup.ipynb"),
    # autograd tutorials by the textbook's author: basic derivatives, flattening functions
    ("neonwatty/autograd_tutorials", "basic_examples.ipynb"),
    ("neonwatty/autograd_tutorials", "flattening_functions.ipynb"),
    # (round 10) black-box variational inference for Bayesian linear models
    ("ldv1/bbvi_linear_models", "bbvi.py"),
    # Hamiltonian Monte Carlo with autograd's gradients of potentials (a package's examples)
    ("ColCarroll/minimc", "examples/api_examples.py"),
    # a lecture-notes repository: a character RNN (autograd's example, as a reader kept it)
    ("burakbayramli/classnotes", "sk/2017/08/rnn.py"),
    # an inference package's notebook: autograd's gradient of a model's log-likelihood
    ("pints-team/pints", "examples/interfaces/automatic-differentiation-using-autograd.ipynb"),
    # course projects (Harvard AM207, fall 2020): neural linear models and LUNA against
    # Bayesian networks and a GP; subspace inference with HMC and Bayes by backprop
    ("sytseng/AM207_Final_Project_Fall_2020", "am207_final_project_luna.ipynb"),
    ("sytseng/AM207_Final_Project_Fall_2020", "notebooks/comparison_of_methods.ipynb"),
    ("sytseng/AM207_Final_Project_Fall_2020", "notebooks/LUNA_gap_experiment.ipynb"),
    ("Yuting-Kou/am207_Project", "test.py"),
    ("Yuting-Kou/am207_Project", "src/hmc_final.ipynb"),
    ("Yuting-Kou/am207_Project", "src/bbb_final.ipynb"),
    # another AM207 project: calibration of Bayesian networks' uncertainty (a network by hand,
    # and the experiments that sample it)
    ("0-one/AM207_Project_Deep_Learning_Uncertainties_Calibration", "experiments/neuralnet.py"),
    ("0-one/AM207_Project_Deep_Learning_Uncertainties_Calibration",
     "experiments/experiments.py"),
    # the textbook's earlier repository (not the one above): its second edition's exercises
    # (nonlinear learning, feature learning, multilayer perceptrons) and notes on networks'
    # optimisation, batch normalisation and regularisation
    (MLR_OLD, "mlrefined_exercises/ed_2/chapter_10/chapter_10_exercises.ipynb"),
    (MLR_OLD, "mlrefined_exercises/ed_2/chapter_11/chapter_11_exercises.ipynb"),
    (MLR_OLD, "mlrefined_exercises/ed_2/chapter_13/chapter_13_exercises.ipynb"),
    (MLR_OLD, "notes/13_Multilayer_perceptrons/13_3_Optimization.ipynb"),
    (MLR_OLD, "notes/13_Multilayer_perceptrons/13_6_Batch_normalization.ipynb"),
    (MLR_OLD, "notes/11_Feature_learning/11_6_Regularization.ipynb"),
    # (round 11) a wrapper of scipy.optimize.minimize that takes autograd's gradients of
    # functions of several arrays (its tutorials: Rosenbrock, ridge regression, a Gaussian
    # mixture by maximum likelihood, preconditioning, whitening)
    ("pierreablin/autoptim", "tutorials/rosenbrock.py"),
    ("pierreablin/autoptim", "tutorials/ridge_regression.py"),
    ("pierreablin/autoptim", "tutorials/gaussian_mixture.py"),
    ("pierreablin/autoptim", "tutorials/preconditioning.py"),
    ("pierreablin/autoptim", "tutorials/whitening.py"),
    # a GRU whose decision-tree surrogate regularises it (tree regularisation), trained
    # through autograd's gradients of the recurrent network
    ("dtak/tree-regularization-public", "train.py"),
    # "right for the right reasons": networks penalised by their input gradients (a
    # derivative inside the objective), on toy and real data sets
    ("dtak/rrr", "experiments/2D Intuition.ipynb"),
    ("dtak/rrr", "experiments/Iris-Cancer.ipynb"),
    ("dtak/rrr", "experiments/Toy Colors.ipynb"),
    ("dtak/rrr", "experiments/Loss Functions.ipynb"),
    ("dtak/rrr", "bin/test_gradient_variants.py"),
    # a variational inference package (classes of approximations, objectives, optimisers)
    # and its documentation's notebooks
    ("jhuggins/viabel", "docs/source/quickstart.ipynb"),
    ("jhuggins/viabel", "docs/source/robust-regression.ipynb"),
    # variational boosting: mixtures of Gaussians grown component by component (classes of
    # models and approximations), a synthetic 2-D figure and hierarchical models
    ("andymiller/vboost", "code/make_synth_2d_figure.py"),
    ("andymiller/vboost", "code/make_vb_cartoon_figure.py"),
    ("andymiller/vboost", "code/mlm_main.py"),
    # parameter patterns that flatten and fold constrained parameters (PSD matrices,
    # simplices) and their documentation's optimisation notebooks (Hessians, HVPs)
    ("rgiordan/paragami", "docs/source/example_notebooks/optimization_class.ipynb"),
    ("rgiordan/paragami", "docs/source/example_notebooks/optimizing_psd_matrix.ipynb"),
    ("rgiordan/paragami", "docs/source/example_notebooks/parameter_containers.ipynb"),
    ("rgiordan/paragami",
     "docs/source/example_notebooks/flattening_and_folding_psd_matrix.ipynb"),
    # optimisation on manifolds: a Gaussian mixture fitted on a product of positive definite
    # matrices and Euclidean spaces (gradients and Hessian-vector products of the cost)
    ("pymanopt/pymanopt", "examples/notebooks/mixture_of_gaussians.py"),
    # linear response variational Bayes: parameter objects (classes with methods) whose
    # objectives are differentiated to second order, its example and its tests
    ("rgiordan/LinearResponseVariationalBayes.py", "Example.ipynb"),
    ("rgiordan/LinearResponseVariationalBayes.py",
     "LinearResponseVariationalBayes/test_objectives.py"),
    ("rgiordan/LinearResponseVariationalBayes.py",
     "LinearResponseVariationalBayes/test_exponential_families.py"),
    # reduced-variance reparameterisation gradients (control variates from Hessians) for
    # black-box variational inference
    ("andymiller/ReducedVarianceReparamGradients", "code/example.py"),
    # hidden-parameter MDPs: a Bayesian neural network transition model (a class) trained by
    # autograd's gradients, on a toy system
    ("dtak/hip-mdp-public", "toy_example.ipynb"),
    # survival models (classes whose hazards are differentiated; Hessians for the standard
    # errors; scipy.optimize with autograd's gradients): the package's example programs
    ("CamDavidsonPilon/lifelines", "examples/cure_model.py"),
    ("CamDavidsonPilon/lifelines", "examples/mixture_cure_model.py"),
    ("CamDavidsonPilon/lifelines", "examples/haft_model.py"),
    ("CamDavidsonPilon/lifelines", "examples/copula_frailty_weibull_model.py"),
    ("CamDavidsonPilon/lifelines", "examples/royston_parmar_splines.py"),
    ("CamDavidsonPilon/lifelines", "examples/crowther_royston_clements_splines.py"),
    ("CamDavidsonPilon/lifelines", "examples/left_censoring_experiments.py"),
    # (round 19) a course project: ordinary differential equations solved by small networks
    # (Lagaris' trial solutions; derivatives of the network in time inside the loss), its
    # package's demos and its authors' notebooks (single ODEs, Lotka-Volterra, Van der Pol,
    # Lorenz and Rossler systems, stiff systems, fitting a function with scipy's optimisers)
    ("JiaweiZhuang/AM205_final", "example/Use_API_demo.ipynb"),
    ("JiaweiZhuang/AM205_final", "example/single_ODE.ipynb"),
    ("JiaweiZhuang/AM205_final", "notebook/CHC/LV2.ipynb"),
    ("JiaweiZhuang/AM205_final", "notebook/CHC/LV3.ipynb"),
    ("JiaweiZhuang/AM205_final", "notebook/CHC/SimpleODE.ipynb"),
    ("JiaweiZhuang/AM205_final", "notebook/CHC/Van_der_Pol_oscillator.ipynb"),
    ("JiaweiZhuang/AM205_final", "notebook/JWZ/Flexible_initial_cond.ipynb"),
    ("JiaweiZhuang/AM205_final", "notebook/JWZ/ODE_ANN_basecase.ipynb"),
    ("JiaweiZhuang/AM205_final", "notebook/JWZ/fit_function_autograd_scipy.ipynb"),
    ("JiaweiZhuang/AM205_final", "notebook/JWZ/stiff_ODE_system.ipynb"),
    ("JiaweiZhuang/AM205_final", "notebook/RZ/Lorenz_Attractor.ipynb"),
    ("JiaweiZhuang/AM205_final", "notebook/RZ/Rossler_Attractor.ipynb"),
    # sensitivity of optima to hyperparameters (Hessians, linear responses, their Taylor
    # expansions) built on autograd: its tests and its documentation's notebook
    ("rgiordan/vittles", "docs/source/example_notebooks/mle_weight_sensitivity_example.ipynb"),
    ("rgiordan/vittles", "vittles/tests/test_bivariate_sensitivity_lib.py"),
    ("rgiordan/vittles", "vittles/tests/test_lr_cov_lib.py"),
    ("rgiordan/vittles", "vittles/tests/test_sensitivity_lib.py"),
    ("rgiordan/vittles", "vittles/tests/test_sparse_hessian_lib.py"),
    # variational inference over permutations (the Birkhoff polytope): a permutation's
    # posterior learnt by stochastic gradients of a reparameterised ELBO
    ("slinderman/birkhoff", "experiments/permutation.py"),
    # a thesis's Bayesian network with stochastic inputs, fitted by black-box
    # alpha-divergence minimisation (a bimodal, heteroscedastic toy problem)
    ("helmrad/Bayesian-Neural-Network-with-Stochastic-Inputs", "BNN.py"),
    # Gaussian-process priors mapped onto Bayesian networks' weights (a KL between sampled
    # functions and a GP, with entropy estimates; adversarial and minimax variants), and the
    # network, the GP and the toy problems they are tried on
    (GPP, "code/bnn.py"),
    (GPP, "code/gp.py"),
    (GPP, "code/map_gpp_bnn.py"),
    (GPP, "code/map_gpp_bnn_advers.py"),
    (GPP, "code/map_gpp_bnn_entropy.py"),
    (GPP, "code/map_gpp_bnn_minmax.py"),
    (GPP, "code/toy_example.py"),
    (GPP, "code/toy_example_multivariate.py"),
    # POMDPs learnt by prediction-constrained EM (an HMM with continuous observations whose
    # likelihood and value are differentiated together): the tiger problem and a sepsis
    # simulator
    ("dtak/POPCORN-POMDP", "src/test_tiger.py"),
    ("dtak/POPCORN-POMDP", "src/test_tiger_GMM.py"),
    ("dtak/POPCORN-POMDP", "src/test_tiger_missingdata.py"),
    ("dtak/POPCORN-POMDP", "src/test_sepsis_sim.py"),
    # horseshoe priors for Bayesian networks (structured variational inference)
    ("dtak/hs-bnn-public", "src/plot_weights.py"),
    # (round 20) a deep-learning tutorial's examples, each a class whose training loop takes
    # value_and_grad of a bound method (a network, an RNN, an LSTM, a VAE and a conditional VAE
    # with a hand-written Adam), and parametric Gaussian processes (a class; a 1-D example and
    # an airline-delay data set)
    (RAISSI_DL, "NeuralNetworks/Example.py"),
    (RAISSI_DL, "RecurrentNeuralNetworks/Example.py"),
    (RAISSI_DL, "LongShortTermMemoryNetworks/Example.py"),
    (RAISSI_DL, "VariationalAutoencoders/Example.py"),
    (RAISSI_DL, "ConditionalVariationalAutoencoders/Example.py"),
    ("maziarraissi/ParametricGP", "PGPs_autograd/Examples/one_dimensional_example.py"),
    ("maziarraissi/ParametricGP", "PGPs_autograd/Examples/Airline.py"),
    # a learner's scripts beside PyTorch ones: derivatives of tanh, regressions, feature maps,
    # a network by sgd, flattening, a liquid simulation optimised with scipy, a classifier
    (SHIRISH, "autograd-diff.py"),
    (SHIRISH, "autograd-nn-example.py"),
    (SHIRISH, "autograd-test.py"),
    (SHIRISH, "autograd_basic.py"),
    (SHIRISH, "autograd_feature_mapping.py"),
    (SHIRISH, "autograd_flatten.py"),
    (SHIRISH, "autograd_lin_regression.py"),
    (SHIRISH, "autograd_neural_net.py"),
    (SHIRISH, "liquid_sim.py"),
    (SHIRISH, "nna.py"),
    # a blog post (a Quarto document): an SIR model fitted by gradient descent through its
    # forward sensitivities, with autograd's Jacobians of the right-hand side in scipy's odeint
    ("Dpananos/dpananos.github.io", "posts/2019-05-21-odes/index.qmd"),
    # an MCMC package whose samplers (NUTS, HMC, Metropolis, slice) take autograd's gradients of
    # a log-posterior with one argument per variable: its example notebooks and scripts
    ("mcleonard/sampyl", "examples/Examples.ipynb"),
    ("mcleonard/sampyl", "examples/Abalone Model.ipynb"),
    ("mcleonard/sampyl", "examples/effective_sample_size_example.py"),
    ("mcleonard/sampyl", "examples/slice_sample.py"),
    # black-box variational inference: a linear model with a spike-and-slab prior (Gumbel-max
    # relaxed Bernoulli samples), and a course exercise's score-function estimator for a small
    # Bayesian network (gradients of the entropy with respect to four arguments at once)
    ("ldv1/bbvi_spike_and_slab", "bbvi.py"),
    ("edwisdom/bbvi", "bbvi.py"),
    # Bayesian logistic regression by a Laplace approximation
    ("saurabhmathur96/bayes-logistic-regression", "laplace.py"),
    # a course's assignment (probabilistic learning, Toronto): naive Bayes on binarised MNIST
    # fitted by autograd's gradients with adam, in three students' repositories
    ("EricElmoznino/csc412-a2", "starter.py"),
    ("leoouyang/CSC412", "A2/starter.py"),
    ("leoouyang/CSC412", "A2/q3_wrong.py"),
    ("heyyjudes/csc412", "CSC412_A2/unsupervised.py"),
    # kernel goodness-of-fit tests (Stein discrepancies: the score of a density by
    # elementwise_grad of its log, test locations optimised through autograd's gradients with
    # scipy): the package's notebooks and its unittest suites
    (KGOF, "ipynb/demo_kgof.ipynb"),
    (KGOF, "ipynb/demo_kgof_mltrain_workshop.ipynb"),
    (KGOF, "ipynb/fssd_locs_surface.ipynb"),
    (KGOF, "ipynb/preliminary.ipynb"),
    (KGOF, "ipynb/gof_kernel_stein.ipynb"),
    (KGOF, "ipynb/gof_linear_kernel_stein.ipynb"),
    (KGOF, "ipynb/gof_me_test.ipynb"),
    (KGOF, "kgof/test/test_density.py"),
    (KGOF, "kgof/test/test_goftest.py"),
    (KGOF, "kgof/test/test_kernel.py"),
    # (round 21) a Gaussian process written three ways: autograd's GP example adapted, a class
    # deriving the derivative of a fitted scikit-learn GP's mean with elementwise_grad, and a
    # scikit-learn estimator class whose fit minimises value_and_grad of a bound method
    ("jejjohnson/gp_autograd", "examples/autograd_example.py"),
    ("jejjohnson/gp_autograd", "gaussian_process.py"),
    ("jejjohnson/gp_autograd", "gp_autograd/gaussianprocess.py"),
    ("jejjohnson/gp_autograd", "notebooks/autograd.ipynb"),
    # a reader's Bayesian examples: black-box SVI and notebooks contrasting VI and EP
    ("afcarl/bayes_examples", "black_box_svi.py"),
    ("afcarl/bayes_examples", "ep_averaging_buster.ipynb"),
    ("afcarl/bayes_examples", "vi_compactness_buster.ipynb"),
    # Bayes by backprop: Bayesian networks on MNIST and on the mushroom bandit (contextual)
    ("daeilkim/bayesbackprop", "bayes_nn_mushroom.py"),
    ("daeilkim/bayesbackprop", "bayes_nn_contextual_mushrooms.py"),
    ("daeilkim/bayesbackprop", "bayes_nn_mnist.py"),
    ("daeilkim/bayesbackprop", "black_box_svi.py"),
    # a thesis's Bayesian and plain networks as classes (fitted to lidar data by adam)
    ("danielflamshep/MSc-Project", "bayesian_neural_net.py"),
    ("danielflamshep/MSc-Project", "neural_net.py"),
    # Bayesian networks and latent-variable Bayesian networks by BBVI
    ("danielflamshep/bnns", "bayesian_neural_net.py"),
    ("danielflamshep/bnns", "latent_variable_bayesian_neural_net.py"),
    # stick-breaking priors for Bayesian networks, neural processes, the variational
    # information bottleneck (research code in many versions)
    ("UofTGuo/stick-breaking-bnn", "bayesian_neural_net.py"),
    ("UofTGuo/stick-breaking-bnn", "latent_bnn.py"),
    ("UofTGuo/stick-breaking-bnn", "latent_nn_clean_v1.py"),
    ("UofTGuo/stick-breaking-bnn", "latent_nn_clean_v2.py"),
    ("UofTGuo/stick-breaking-bnn", "latent_variable_bayesian_neural_net.py"),
    ("UofTGuo/stick-breaking-bnn", "neural_process.py"),
    ("UofTGuo/stick-breaking-bnn", "neural_process_gem.py"),
    ("UofTGuo/stick-breaking-bnn", "neural_process_gem_v5_agg.py"),
    ("UofTGuo/stick-breaking-bnn", "neural_processes_ag.py"),
    ("UofTGuo/stick-breaking-bnn", "stick_breaking_VIB.py"),
    ("UofTGuo/stick-breaking-bnn", "stick_breaking_bnn.py"),
    ("UofTGuo/stick-breaking-bnn", "stick_breaking_lvbnn.py"),
    ("UofTGuo/stick-breaking-bnn", "variational_information_bottleneck.py"),
    # a thesis's experiments with GP priors for Bayesian networks (the code MappingGPPstoBNNS
    # grew from): a GAN, a Gaussian mixture, hypernetworks, an IWAE, KL estimates, networks
    # as GPs, posterior regularisation, variational implicit processes
    ("danielflamshep/gpbnn", "gan.py"),
    ("danielflamshep/gpbnn", "gmm_autograd.py"),
    ("danielflamshep/gpbnn", "hypernet_exp.py"),
    ("danielflamshep/gpbnn", "hypernn_gp.py"),
    ("danielflamshep/gpbnn", "iwae.py"),
    ("danielflamshep/gpbnn", "kl.py"),
    ("danielflamshep/gpbnn", "nn-gp.py"),
    ("danielflamshep/gpbnn", "nngpp.py"),
    ("danielflamshep/gpbnn", "posterior_reg.py"),
    ("danielflamshep/gpbnn", "vip.py"),
    # robustness of Bayesian nonparametric VI (an IBP's finite approximation, CAVI and ELBO
    # gradients checked in unittest suites)
    ("Runjing-Liu120/Variational_BNP_robustness", "finite_approx/unit_tests/cavi_unittest.py"),
    ("Runjing-Liu120/Variational_BNP_robustness", "DP_mixture/DP_normal_mixture_unittest.py"),
    # round 22 (outside22): MAML written with autograd's grad of a grad (hypergradients)
    ("RyanDJLee/MAML_Autograd", "maml.py"),
    # stochastic-gradient HMC (a course project): samplers taking autograd's gradients
    ("JiajunSong629/SGHMC", "test/test.py"),
    ("JiajunSong629/SGHMC", "experiments/Figure_4.ipynb"),
    # Kalman smoothing's gradients: the log partition's gradient as expected statistics,
    # autograd primitives with hand-written VJPs, gradients of gradients
    ("mattjj/kalman_grads", "kalman.py"),
    ("mattjj/kalman_grads", "kalman2.py"),
    ("mattjj/kalman_grads", "kalman3.py"),
    ("mattjj/kalman_grads", "kalman_grads.py"),
    ("mattjj/kalman_grads", "test.py"),
    # normalizing flows for variational inference (planar flows, elementwise_grad of tanh)
    ("andymiller/NormFlows", "normflows/normflows.py"),
    # multi-group Gaussian processes: kernel hyperparameters fitted by scipy with autograd
    ("andrewcharlesjones/multi-group-GP", "experiments/simulations/recover_all_kernel_params.py"),
    ("andrewcharlesjones/multi-group-GP", "multigroupGP/old/gp_autograd.py"),
    ("andrewcharlesjones/multi-group-GP",
     "multigroupGP/old/recover_all_kernel_parameters.py"),
    # the linear model of coregionalization (multi-output GPs)
    ("andrewcharlesjones/linear-model-coregionalization", "lmc.py"),
    ("andrewcharlesjones/linear-model-coregionalization", "gp_functions.py"),
    # spiking networks: GLMs and variational inference over hidden neurons, by adam
    ("andrewcharlesjones/variational_spiking_networks", "glm_spiking_visible_only.ipynb"),
    ("andrewcharlesjones/variational_spiking_networks",
     "glm_spiking_visible_only_bernoulli.ipynb"),
    ("andrewcharlesjones/variational_spiking_networks", "vi_spiking_visible_and_hidden.ipynb"),
    ("andrewcharlesjones/variational_spiking_networks",
     "vi_spiking_visible_and_hidden_batch.ipynb"),
    ("andrewcharlesjones/variational_spiking_networks",
     "vi_spiking_visible_and_hidden_clean_adam.ipynb"),
    ("andrewcharlesjones/variational_spiking_networks",
     "vi_spiking_visible_and_hidden_clean_poisson.ipynb"),
    # posterior-regularised autoencoders (a research project's transductive experiments)
    ("dtak/POE", "Source_Transductive/run.py"),
    # word2vec (skip-gram with negative sampling) trained with autograd's gradients
    ("kedar79/Autograd_Word2Vec", "main_word2vec.py"),
    ("kedar79/Autograd_Word2Vec", "autograd_word2vec.py"),
    # a teaching example: a small network's gradient, autograd against hand-written code
    ("foxtrotmike/autograd_exmaple", "autograd_test.py"),
    # round 23 (corpus23): a machine-learning course's student projects (Oslo, FYS-STK4155):
    # networks by hand whose gradients autograd takes (regression on Franke's function, the
    # breast-cancer classifier), gradient descent variants, and networks solving ODEs and the
    # diffusion equation (the trial solution's derivatives in the loss)
    ("hkve/FYS-STK4155", "Project2/src/analysis/neuralnet_reg.py"),
    ("hkve/FYS-STK4155", "Project2/src/analysis/classification.py"),
    ("sigurdru/FYS-STK4155-Applied-Data-Analysis-and-Machine-Learning", "project2/code/main.py"),
    ("sigurdru/FYS-STK4155-Applied-Data-Analysis-and-Machine-Learning",
     "project2/code/brest_cancer.py"),
    ("Johanmkr/FYS-STK4155colab", "project2/code/regression.py"),
    ("Johanmkr/FYS-STK4155colab", "project2/code/classification.py"),
    ("Johanmkr/FYS-STK4155colab", "project2/code/simple_regression.py"),
    ("EdvardRornes/FYS-STK4155", "Exercises/Week41/Week41.py"),
    ("EdvardRornes/FYS-STK4155", "Exercises/Week42/exercisesweek42.ipynb"),
    ("EdvardRornes/FYS-STK4155", "Exercises/Week43/exercisesweek43.ipynb"),
    ("EdvardRornes/FYS-STK4155", "Project2/Python/NN_No_Keras.py"),
    ("EdvardRornes/FYS-STK4155", "Project2/Python/NeuralNetworkCancer.py"),
    ("EdvardRornes/FYS-STK4155", "Project2/Python/LinearRegression.py"),
    ("EdvardRornes/FYS-STK4155", "Project2/Python/LogisticRegression.py"),
    ("joaogci/FYS-STK4155-projects", "project_3/lecture_code/nn_ode.py"),
    ("joaogci/FYS-STK4155-projects", "project_3/lecture_code/nn_ode2.py"),
    ("joaogci/FYS-STK4155-projects", "project_3/lecture_code/nn_ode3.py"),
    ("joaogci/FYS-STK4155-projects", "project_3/lecture_code/nn_pde.py"),
    ("joaogci/FYS-STK4155-projects", "project_3/without_tf/test_ode.py"),
    ("joaogci/FYS-STK4155-projects", "project2_nn_from_scratch/test_franke.py"),
    ("joaogci/FYS-STK4155-projects", "project2_nn_from_scratch/test_cancer.py"),
    ("Gadangadang/Fys-Stk4155", "Project 2/code/Analysis and Grid search/Franke_NN.py"),
    ("Gadangadang/Fys-Stk4155", "Project 2/code/Tests and Validation/test_accuracy.py"),
    ("Gadangadang/Fys-Stk4155", "Project 3/code/NN_PDE_solver.py"),
    ("Gadangadang/Fys-Stk4155", "Project 3/code/ML_PDE_solver.py"),
    ("oystehbr/FYS-STK4155", "jupyter/week39.ipynb"),
    ("oystehbr/FYS-STK4155", "jupyter/week40.ipynb"),
    ("oystehbr/FYS-STK4155", "jupyter/week42.ipynb"),
    ("oystehbr/FYS-STK4155", "project2/code/test_project_2.py"),
    ("oystehbr/FYS-STK4155", "project3/code/test_project_3.py"),
    ("Bragit123/FYS-STK3155", "Weekly_Exercises/43+44/lec_notes.py"),
    ("jovidie/FYS-STK4155-Project-2", "examples/NN_adam_tests.py"),
    ("jovidie/FYS-STK4155-Project-2", "examples/cancer_tests.py"),
    ("jovidie/FYS-STK4155-Project-2", "examples/nn-tests.py"),
    ("jovidie/FYS-STK4155-Project-2", "examples/test.py"),
    ("jovidie/FYS-STK4155-Project-2", "examples/tests_even/gd-figs-franke.py"),
    ("KariEriksen/FYS-STK4155", "project3/src/NN_ode_pde.ipynb"),
    ("GauteJ1/FYS-STK-projects", "project_2/weekly_assignments/assignment43.ipynb"),
    ("GauteJ1/FYS-STK-projects", "project_2/weekly_assignments/exercisesweek42.ipynb"),
    ("jensjpedersen/FYS-STK4155-Applied_Data_Analysis_and_Machine_Learning",
     "Project2/test_gradientdescent.py"),
    ("Sebamun/FYS-STK4155_Projects", "Project2/Code/main_GD.py"),
    ("Sebamun/FYS-STK4155_Projects", "Project2/Code/main_NN.py"),
    ("SaraPJensen/FYS-STK", "Project3/code/NN_diffusion_eq.py"),
    ("SaraPJensen/FYS-STK", "Project3/code/NN_learning_schedules.py"),
    ("SaraPJensen/FYS-STK", "Project3/code/NN_sym_count.py"),
    ("SaraPJensen/FYS-STK", "Project3/code/NN_sym_eq.py"),
    ("SaraPJensen/FYS-STK", "Project2/ex_B.py"),
    ("Fslippe/FYS-STK4155", "project2/src/1D_compare.py"),
    ("Fslippe/FYS-STK4155", "project2/src/franke_compare.py"),
    ("Fslippe/FYS-STK4155", "project2/src/breast_cancer.py"),
    ("Fslippe/FYS-STK4155", "project3/code/main.py"),
    ("Emilinya/FYS-STK4155", "project3/src/ffnn_solver.py"),
    ("Emilinya/FYS-STK4155", "project3/src/poly_solver.py"),
    ("hglad/FYS-STK4155", "p3/heat_pde.py"),
    ("hglad/FYS-STK4155", "p3/new_heat_pde.py"),
    # the course's own lecture notes (advanced machine learning): optimisation, networks by
    # hand with autograd's gradients, the weekly notebooks' examples
    ("CompPhysics/AdvancedMachineLearning", "doc/LectureNotes/chapter11.ipynb"),
    ("CompPhysics/AdvancedMachineLearning", "doc/LectureNotes/chapteroptimization.ipynb"),
    ("CompPhysics/AdvancedMachineLearning", "doc/Programs/nn.ipynb"),
    ("CompPhysics/AdvancedMachineLearning",
     "doc/pub/AdditionalMaterial/NNpart5code/ipynb/NNpart5code.ipynb"),
    ("CompPhysics/AdvancedMachineLearning", "doc/pub/week2/ipynb/week2.ipynb"),
    ("CompPhysics/AdvancedMachineLearning", "doc/pub/week4/ipynb/week4.ipynb"),
    ("CompPhysics/AdvancedMachineLearning", "doc/pub/week5/ipynb/week5.ipynb"),
    ("CompPhysics/AdvancedMachineLearning", "doc/src/week3/programs/examplecodes.py"),
    # an uncertainty-quantification toolkit's infinitesimal jackknife (autograd's Hessians)
    ("IBM/UQ360", "examples/infinitesimal_jackknife/demo_structured_infinitesimal_jackknife.ipynb"),
    ("IBM/UQ360", "tests/test_IJ.py"),
    # round 24 (corpus24): sources unlike the course above. MCMC samplers (Hamiltonian,
    # Langevin, Metropolis) with autograd's gradients of log densities: a package's examples
    # (Bayesian networks by hand on regression and MNIST) and a comparison of integrators
    ("jamesvuc/autograd-mcmc", "examples/one_d_test.py"),
    ("jamesvuc/autograd-mcmc", "examples/two_d_test.py"),
    ("jamesvuc/autograd-mcmc", "examples/bayes_regression_mlp.py"),
    ("jamesvuc/autograd-mcmc", "examples/bayes_mnist_mlp.py"),
    ("ArneTillmann/HMC_Integrator_Comparison", "comparison.py"),
    ("ArneTillmann/HMC_Integrator_Comparison", "polymer.py"),
    ("ArneTillmann/HMC_Integrator_Comparison", "prob_dist.py"),
    # a mathematics-for-machine-learning coursework (Imperial College): gradients of functions
    # of the plane (a log determinant among them) by autograd, and a first try of it
    ("jinwei14/Mathematics-for-Machine-Learning", "CW1/answers.py"),
    ("jinwei14/Mathematics-for-Machine-Learning", "CW1/tryAutoGrad.py"),
    # photonic inverse design (a package's notebooks): objectives of simulated fields whose
    # partial derivatives autograd takes (complex fields, |E|^2 in regions), for the adjoint
    ("fancompute/angler", "Notebooks/2_port.ipynb"),
    ("fancompute/angler", "Notebooks/Splitter.ipynb"),
    ("fancompute/angler", "Notebooks/T_port.ipynb"),
    ("fancompute/angler", "Notebooks/Accelerator.ipynb"),
    ("fancompute/angler", "tests/test_gradient.py"),
    ("fancompute/angler", "tests/test_objective.py"),
    # round 27 (corpus27): a reader's folder of autograd scripts beside PyTorch ones: autograd's
    # logistic regression as the reader kept it, and character and sinusoid RNNs trained by adam
    ("niceyeti/DeepSeq", "autograd/logistic_regression_example.py"),
    ("niceyeti/DeepSeq", "autograd/rnn.py"),
    ("niceyeti/DeepSeq", "autograd/sinusoid_rnn.py"),
    # round 28 (corpus28): a course's homework on autograd (derivatives of small functions,
    # nested and second, a sigmoid; a soft-margin SVM's hinge loss trained by gradient
    # descent), a reader's autograd example beside sklearn ones, a learner's notebook
    # (a Taylor-series sine, logistic regression trained by gradients)
    ("junsix/ML_HW", "ML_HW4/HW4_1_Autograd.ipynb"),
    ("junsix/ML_HW", "ML_HW4/HW4_2_SVM.ipynb"),
    ("endsley/sklearn_example", "autograd_example.py"),
    ("jadedocelot/Bin2rong",
     "joshua_tree/my_first_neural_network/PyTorch/jupyter_tree/"
     "Using Autograd in a PyTorch Neural Network.ipynb"),
    # (round 29) photonic inverse design: finite-difference frequency- and time-domain
    # solvers whose sparse solves are autograd primitives with their own vjps and jvps
    # (complex fields), optimised through scipy and its own optimisers; its gradient tests
    ("fancompute/ceviche", "examples/autograd_fft.py"),
    ("fancompute/ceviche", "examples/forwardmode_grating_coupler.py"),
    ("fancompute/ceviche", "examples/optimize_1_3.py"),
    ("fancompute/ceviche", "examples/optimize_accelerator.py"),
    ("fancompute/ceviche", "examples/optimize_box.py"),
    ("fancompute/ceviche", "examples/optimize_mode_converter.py"),
    ("fancompute/ceviche", "examples/bloch_angle_planewave.ipynb"),
    ("fancompute/ceviche", "examples/fdfd_mf_intro.ipynb"),
    ("fancompute/ceviche", "examples/multifrequency_fdfd.ipynb"),
    ("fancompute/ceviche", "examples/simulate_splitter_fdtd.ipynb"),
    ("fancompute/ceviche", "tests/test_gradients_fdfd.py"),
    ("fancompute/ceviche", "tests/test_gradients_fdfd_complex.py"),
    ("fancompute/ceviche", "tests/test_gradients_fdfd_mf.py"),
    ("fancompute/ceviche", "tests/test_gradients_fdtd.py"),
    ("fancompute/ceviche", "tests/test_param_opt.py"),
    ("fancompute/ceviche", "tests/test_primitives.py"),
    # a course's homework (data science, Northeastern): gradients of matrix expressions
    # checked against hand derivatives, gradient descent for regressions
    ("RyanTietjen/DS4400", "Homework/Ryan Tietjen - DS4400 - HW 0.ipynb"),
    ("RyanTietjen/DS4400", "Homework/HW1/HW1 - Ryan Tietjen.ipynb"),
    ("RyanTietjen/DS4400", "Homework/HW2/HW2 - Ryan Tietjen.ipynb"),
    ("RyanTietjen/DS4400", "In Class Activities/In class 4.ipynb"),
    # reparameterization gradients through acceptance-rejection samplers (gamma, Dirichlet):
    # the paper's notebooks
    ("blei-lab/ars-reparameterization", "gamma/demo.ipynb"),
    ("blei-lab/ars-reparameterization", "gamma/gamma correction.ipynb"),
    ("blei-lab/ars-reparameterization", "sparse gamma def/nips estimate variance.ipynb"),
    # a course's third project (Oslo, FYS-STK4155): the heat equation and an eigenvalue
    # problem solved by neural networks whose trial functions are differentiated in x and t
    # (elementwise_grad, jacobian, hessian of the network inside the cost), two groups
    ("nicholaskarlsen/FYS-STK4155", "project_3/notebooks/PDE_NN_TEMTEST.ipynb"),
    ("nicholaskarlsen/FYS-STK4155", "project_3/notebooks/Eigen_NN_TEMTEST.ipynb"),
    ("nicholaskarlsen/FYS-STK4155", "project_3/.deprecated/morten_example_diffusion.ipynb"),
    ("ingooboo/FYS-STK-Project-3", "main/test_0_implementations.ipynb"),
    ("ingooboo/FYS-STK-Project-3", "main/test_1_grid_resolution.ipynb"),
    ("ingooboo/FYS-STK-Project-3", "main/test_2_arcitecture.ipynb"),
    ("ingooboo/FYS-STK-Project-3", "main/test_3_PINN_vs_FTCS_2.ipynb"),
    # the same course's second and third projects by another student: regressions and a
    # feed-forward network trained by gradient descent methods taking autograd's gradients
    ("JohanCarlsen/fys-stk4155", "project2/linreg_analysis.py"),
    ("JohanCarlsen/fys-stk4155", "project2/simple_function.py"),
    ("JohanCarlsen/fys-stk4155", "project2/wisconsin.py"),
    ("JohanCarlsen/fys-stk4155", "project3/handwriting.py"),
    ("JohanCarlsen/fys-stk4155", "project3/testing/iris.py"),
    ("JohanCarlsen/fys-stk4155", "project3/testing/test.py"),
    ("emmastorberg/FYS-STK4155_Project2", "main.py"),
    ("emmastorberg/FYS-STK4155_Project2", "tests.py"),
    ("emmastorberg/FYS-STK4155_Project2", "gradient_descent_examples.ipynb"),
    ("emmastorberg/FYS-STK4155_Project2", "relevant_weekly_exercises/week42.ipynb"),
    ("emmastorberg/FYS-STK4155_Project2", "relevant_weekly_exercises/week43.ipynb"),
    ("YVol322/FYS-STK4155", "Project3/programs/DNN.py"),
    ("YVol322/FYS-STK4155", "Project3/programs/DNN_MSE.py"),
    ("YVol322/FYS-STK4155", "Project3/programs/DNN_MSE_actfunctions.py"),
    ("kristianeholm/fys-stk4155", "project2/part2a/sgd_adam.py"),
    ("kristianeholm/fys-stk4155", "project2/part2a/sgd_rmsprop.py"),
    ("kristianeholm/fys-stk4155", "project2/part2e/logistic_regression.py"),
    ("oliverif/FYS-STK4155-project2", "notebooks/Sketches/20211019 - SGD.ipynb"),
    # automatic-differentiation variational inference (ADVI) written from the paper: a linear
    # regression and a non-negative matrix factorisation
    ("juliennonin/auto-diff-variational-inference", "advi/main.py"),
    ("juliennonin/auto-diff-variational-inference", "experiments/toy_linear_regression.py"),
    ("juliennonin/auto-diff-variational-inference", "experiments/non_negative_matrix_facto.py"),
    # stochastic variational inference for a TrueSkill model of tennis games (a course's
    # assignment, worked): an ELBO of a diagonal Gaussian over players' skills
    ("scbwn/Stochastic-Variational-Inference-for-TrueSkill-Model", "approximate_inference.py"),
    ("scbwn/Stochastic-Variational-Inference-for-TrueSkill-Model",
     "stochastic_variational_inference.py"),
    # the FYS-STK4155 course's own lecture notes (a school's edition): what autograd takes
    # (loops, branches, recursion, closures), networks solving ODEs and PDEs with the
    # trial-function method, gradient descent, splines; the MSU edition's optimisation chapter
    ("CompPhysics/MLErasmus", "doc/src/Day2/autodiff/examples_allowed_functions.ipynb"),
    ("CompPhysics/MLErasmus", "doc/src/Day2/autodiff/example_plot.ipynb"),
    ("CompPhysics/MLErasmus", "doc/src/Day4/diffeq.ipynb"),
    ("CompPhysics/MLErasmus", "doc/pub/odenn/ipynb/odenn.ipynb"),
    ("CompPhysics/MLErasmus", "doc/pub/day4/ipynb/day4.ipynb"),
    ("CompPhysics/MLErasmus", "doc/pub/day5/ipynb/day5.ipynb"),
    ("CompPhysics/MLErasmus", "doc/pub/day7/ipynb/day7.ipynb"),
    ("CompPhysics/MLErasmus", "doc/pub/day8/ipynb/day8.ipynb"),
    ("CompPhysics/MLErasmus", "doc/pub/day10/ipynb/day10.ipynb"),
    ("CompPhysics/MLErasmus", "doc/pub/Splines/ipynb/Splines.ipynb"),
    ("CompPhysics/MachineLearningMSU", "doc/pub/GradientOptim/ipynb/GradientOptim.ipynb"),
    # (corpus29) the rest of machine_learning_refined's notes that take derivatives with
    # autograd: zero-, first- and second-order methods, linear classifiers, multiclass,
    # PCA, recommenders, k-means, feature learning, multilayer perceptrons, linear algebra
    (MLR, "notes/11_Feature_learning/11_10_Kfolds.ipynb"),
    (MLR, "notes/11_Feature_learning/11_1_Intro.ipynb"),
    (MLR, "notes/11_Feature_learning/11_3_Real_approximation.ipynb"),
    (MLR, "notes/11_Feature_learning/11_4_Cross_validation.ipynb"),
    (MLR, "notes/11_Feature_learning/11_5_Boosting.ipynb"),
    (MLR, "notes/13_Multilayer_perceptrons/13_5_Activation.ipynb"),
    (MLR, "notes/13_Multilayer_perceptrons/13_7_early_stopping.ipynb"),
    (MLR, "notes/16_Linear_algebra/16_2_Vectors.ipynb"),
    (MLR, "notes/16_Linear_algebra/16_3_Matrices.ipynb"),
    (MLR, "notes/2_Zero_order_methods/2_2_Zero.ipynb"),
    (MLR, "notes/2_Zero_order_methods/2_3_Global.ipynb"),
    (MLR, "notes/2_Zero_order_methods/2_5_Random.ipynb"),
    (MLR, "notes/2_Zero_order_methods/2_6_Coordinate.ipynb"),
    (MLR, "notes/3_First_order_methods/3_2_First.ipynb"),
    (MLR, "notes/3_First_order_methods/3_3_Geometry.ipynb"),
    (MLR, "notes/3_First_order_methods/A_6_Conservative.ipynb"),
    (MLR, "notes/3_First_order_methods/A_7_General_steepest_descent.ipynb"),
    (MLR, "notes/4_Second_order_methods/4_1_Second.ipynb"),
    (MLR, "notes/4_Second_order_methods/4_2_Quadratic.ipynb"),
    (MLR, "notes/6_Linear_twoclass_classification/6_2_Cross_entropy.ipynb"),
    (MLR, "notes/6_Linear_twoclass_classification/6_3_Softmax.ipynb"),
    (MLR, "notes/6_Linear_twoclass_classification/6_4_Perceptron.ipynb"),
    (MLR, "notes/6_Linear_twoclass_classification/6_5_SVMs.ipynb"),
    (MLR, "notes/6_Linear_twoclass_classification/6_8_Metrics.ipynb"),
    (MLR, "notes/6_Linear_twoclass_classification/6_9_Weighted.ipynb"),
    (MLR, "notes/7_Linear_multiclass_classification/7_2_OvA.ipynb"),
    (MLR, "notes/7_Linear_multiclass_classification/7_3_Perceptron.ipynb"),
    (MLR, "notes/7_Linear_multiclass_classification/7_4_Comparison.ipynb"),
    (MLR, "notes/7_Linear_multiclass_classification/7_5_Categorical.ipynb"),
    (MLR, "notes/7_Linear_multiclass_classification/7_6_Metrics.ipynb"),
    (MLR, "notes/7_Linear_multiclass_classification/7_8_Minibatch.ipynb"),
    (MLR, "notes/8_Linear_unsupervised_learning/8_3_PCA.ipynb"),
    (MLR, "notes/8_Linear_unsupervised_learning/8_4_Recommender.ipynb"),
    (MLR, "notes/8_Linear_unsupervised_learning/8_5_Kmeans.ipynb"),
    (MLR, "notes/9_Feature_engineer_select/9_4_Cleaning.ipynb"),
    (MLR, "notes/9_Feature_engineer_select/9_7_Regularization.ipynb"),
    # (round 30, corpus30) Gaussian processes by hand (a tutorial's regression, multi-fidelity
    # regression, Bayesian optimisation and active learning: the negative log marginal
    # likelihood's value_and_grad in scipy's L-BFGS)
    ("paraklas/GPTutorial", "code/Regression.py"),
    ("paraklas/GPTutorial", "code/Regression.ipynb"),
    ("paraklas/GPTutorial", "code/Multifidelity_regression.py"),
    ("paraklas/GPTutorial", "code/Multifidelity_regression.ipynb"),
    ("paraklas/GPTutorial", "code/BayesianOptimization.py"),
    ("paraklas/GPTutorial", "code/ActiveLearning.py"),
    # a network written from scratch whose losses and activations autograd differentiates
    # (elementwise_grad of the activation inside its own backpropagation), and a notebook of
    # Wengert lists
    ("magnuhag/Projects", "NeuralNetwork/NeuralNetwork.py"),
    ("magnuhag/Projects", "NeuralNetwork/NNC.py"),
    ("magnuhag/Projects", "NeuralNetwork/Neural Network.ipynb"),
    ("magnuhag/Projects", "NeuralNetwork/Wengert_list.ipynb"),
    # a photonics workshop's inverse-design notebooks (ceviche's FDFD, objectives of fields)
    ("fancompute/workshop-invdesign", "02_Invdes_intro.ipynb"),
    ("fancompute/workshop-invdesign", "03_Invdes_parameterization.ipynb"),
    ("fancompute/workshop-invdesign", "04_Invdes_wdm_scheduling.ipynb"),
    # inverse kinematics by constrained optimisation with autograd's Jacobians of a linkage
    ("hyparxis/py-k", "ik.py"),
    ("hyparxis/py-k", "constrained_ik.py"),
    # a reader's notebook rebuilding autograd, checked against autograd's own grad
    ("puzzler10/autograd_simpler", "_compgraph1.ipynb"),
    # convolutional fingerprints of molecules (graph networks trained by autograd; needs rdkit)
    ("HIPS/neural-fingerprint", "examples/regression.py"),
    ("HIPS/neural-fingerprint", "examples/visualization.py"),
    ("HIPS/neural-fingerprint", "tests/test_gradients.py"),
    ("HIPS/neural-fingerprint", "experiment_scripts/eval_methods.py"),
    # survival analysis (a package whose fitters take autograd's jacobian and hessian of
    # likelihoods of censored and truncated data, regression and recurrent-event models): its
    # pytest modules, each test function called (tools/pytest_functions.py)
    (SURP, SURP_T + "univariate/parametric/test_binomial.py"),
    (SURP, SURP_T + "univariate/parametric/test_confidence_bounds.py"),
    (SURP, SURP_T + "univariate/parametric/test_discrete.py"),
    (SURP, SURP_T + "univariate/parametric/test_distributions_math.py"),
    (SURP, SURP_T + "univariate/parametric/test_fit.py"),
    (SURP, SURP_T + "univariate/parametric/test_fit_helpers.py"),
    (SURP, SURP_T + "univariate/parametric/test_fixed.py"),
    (SURP, SURP_T + "univariate/parametric/test_lfp_zi.py"),
    (SURP, SURP_T + "univariate/parametric/test_mixture_model.py"),
    (SURP, SURP_T + "univariate/parametric/test_offset_divergence.py"),
    (SURP, SURP_T + "univariate/parametric/test_real_data.py"),
    (SURP, SURP_T + "univariate/parametric/test_regressions.py"),
    (SURP, SURP_T + "univariate/parametric/test_uniform.py"),
    (SURP, SURP_T + "univariate/regression/test_accelerated_life.py"),
    (SURP, SURP_T + "univariate/regression/test_additive_hazards_parametric.py"),
    (SURP, SURP_T + "univariate/regression/test_aft_tvc_fit.py"),
    (SURP, SURP_T + "univariate/regression/test_confidence_bounds.py"),
    (SURP, SURP_T + "univariate/regression/test_parametric_tvc.py"),
    (SURP, SURP_T + "univariate/regression/test_proportional_hazards.py"),
    (SURP, SURP_T + "univariate/regression/test_regression.py"),
    (SURP, SURP_T + "univariate/regression/test_truncation.py"),
    (SURP, SURP_T + "univariate/regression/test_tvc.py"),
    (SURP, SURP_T + "recurrent/test_parametric_inference.py"),
    (SURP, SURP_T + "recurrent/test_nhpp_censoring.py"),
    (SURP, SURP_T + "recurrent/test_hpp_proportional_intensity.py"),
    (SURP, SURP_T + "recurrent/test_ara.py"),
    (SURP, SURP_T + "recurrent/test_ari.py"),
    (SURP, SURP_T + "recurrent/test_cox_lewis.py"),
    (SURP, SURP_T + "univariate/competing_risks/test_parametric_competing_risks.py"),
    (SURP, SURP_T + "univariate/competing_risks/test_fine_gray.py"),
    (SURP, SURP_T + "multivariate/test_copula_censoring.py"),
    (SURP, SURP_T + "degradation/test_path_models.py"),
    (SURP, SURP_T + "degradation/test_degradation_bounds.py"),
    # a course's lectures (mathematical modelling in chemical engineering, Carnegie Mellon,
    # fall 2019): autograd introduced, its applications (sensitivities, ODEs, optimisation,
    # curve fits by least squares with its Jacobians), machine learning by hand
    ("jkitchin/f19-06623", "org/19-introduction-to-autograd.ipynb"),
    ("jkitchin/f19-06623", "lectures/18-followup.ipynb"),
    ("jkitchin/f19-06623", "lectures/20-autograd-applications.ipynb"),
    ("jkitchin/f19-06623", "lectures/20-practice.ipynb"),
    ("jkitchin/f19-06623", "lectures/21-machine-learning.ipynb"),
    ("jkitchin/f19-06623", "lectures/22-ml-2.ipynb"),
    ("jkitchin/f19-06623", "org/test.ipynb"),
    # photonic crystals by plane-wave and guided-mode expansion with an autograd backend
    # (eigenproblems differentiated through the package's primitives): its examples and the
    # gradient tests
    ("fancompute/legume", "docs/examples/05_Plane_wave_expansion_with_autograd.ipynb"),
    ("fancompute/legume", "docs/examples/06_Guided_mode_expansion_with_autograd.ipynb"),
    ("fancompute/legume", "docs/examples/07_Enhancing_your_GME_optimization.ipynb"),
    ("fancompute/legume", "docs/examples/08_Zero_index_BICs_with_GME.ipynb"),
    ("fancompute/legume", "docs/examples/16_GME_W1_waveguide_optimization_with_autograd.ipynb"),
    ("fancompute/legume", "tests/test_gme_grad.py"),
    ("fancompute/legume", "tests/test_primitives.py"),
    # hyperparameter gradients (a research repository): its talks' small programs
    ("HIPS/hypergrad", "talks/code/tanh.py"),
    ("HIPS/hypergrad", "talks/code/sinusoid.py"),
    ("HIPS/hypergrad", "talks/code/sinusoid-taylor.py"),
    # multi-objective optimisation whose problems compute gradients with autograd
    ("anyoptimization/pymoo", "examples/gradient.py"),
    ("anyoptimization/pymoo",
     "examples/algorithms/soo/nonconvex/vendor_scipy/scipy_with_grad_autograd.py"),
    ("anyoptimization/pymoo", "examples/problems/define_custom_problem_with_gradient.py"),
    ("anyoptimization/pymoo", "tests/gradients/test_gradient.py"),
    # single-molecule localisation microscopy: likelihoods' Jacobians and Hessians by autograd
    # checked against hand-written ones
    ("cwseitz/SMLM", "SMLM/tests/jac2d.py"),
    ("cwseitz/SMLM", "SMLM/tests/jac3d.py"),
    ("cwseitz/SMLM", "SMLM/tests/mle2d.py"),
    # (corpus31) trajectory optimisation for simulated systems (a pendulum, a double
    # integrator): differential dynamic programming and iLQR whose dynamics' and costs'
    # Jacobians and Hessians are autograd's; its examples and tests
    ("pvarin/ncortex", "ncortex/examples/run_pendulum_ddp.py"),
    ("pvarin/ncortex", "ncortex/examples/run_double_integrator_ddp.py"),
    ("pvarin/ncortex", "ncortex/examples/run_pendulum_env.py"),
    ("pvarin/ncortex", "ncortex/examples/run_double_integrator_env.py"),
    ("pvarin/ncortex", "ncortex/envs/test/test_pendulum.py"),
    ("pvarin/ncortex", "ncortex/optimization/test/test_ddp.py"),
    ("pvarin/ncortex", "ncortex/optimization/test/test_trajopt.py"),
    ("pvarin/ncortex", "ncortex/utils/test/test_matrix.py"),
    ("pvarin/ncortex", "ncortex/utils/test/test_distance_metrics.py"),
    # kernel two-sample and model-comparison tests whose test locations are optimised by
    # gradient ascent (autograd); kernel-mod needs kgof and freqopttest on the path
    ("wittawatj/interpretable-test", "freqopttest/test/test_tst.py"),
    ("wittawatj/interpretable-test", "ipynb/demo_interpretable_test.ipynb"),
    ("wittawatj/interpretable-test", "ipynb/me_test.ipynb"),
    ("wittawatj/interpretable-test", "ipynb/ume_test.ipynb"),
    ("wittawatj/kernel-mod", "kmod/test/test_mctest.py"),
    ("wittawatj/kernel-mod", "ipynb/demo_kmod.ipynb"),
    ("wittawatj/kernel-mod", "ipynb/demo_sc_ume.ipynb"),
    ("wittawatj/kernel-mod", "ipynb/demo_dc_fssd.ipynb"),
]


_MODULE = "a module of functions: nothing run at the top level takes a derivative"
_NO_DERIVATIVE = "the program takes no derivative (cost functions and plots only)"
_SLOW = "the program itself: autograd too stops at 60 s (load 15-19)"
#: (corpus28) why a program gives TIMEOUT or NO-GRADIENT, read by hand (each run with srcad
#: and with ``--engine autograd``, 60 s, 2026-12-06): the program, not srcad's transform
#: (whose time on each, where it takes a derivative, is below a second or two)
KNOWN = {
    f"{MLR}:notes/4_Second_order_methods/A_8_Nonconvex.ipynb": _NO_DERIVATIVE,
    f"{MLR}:notes/5_Linear_regression/5_5_Weighted.ipynb": _NO_DERIVATIVE,
    f"{MLR}:notes/9_Feature_engineer_select/9_2_Histogram.ipynb": _NO_DERIVATIVE,
    f"{MLR_OLD}:mlrefined_exercises/ed_2/chapter_10/chapter_10_exercises.ipynb": _NO_DERIVATIVE,
    "burakbayramli/classnotes:sk/2017/08/rnn.py": _MODULE,
    "0-one/AM207_Project_Deep_Learning_Uncertainties_Calibration:experiments/neuralnet.py":
        _MODULE,
    "afcarl/bayes_examples:black_box_svi.py": _MODULE,
    "RyanDJLee/MAML_Autograd:maml.py": _MODULE + " (train() is never called)",
    "mattjj/kalman_grads:kalman.py": _MODULE,
    "andrewcharlesjones/linear-model-coregionalization:gp_functions.py": _MODULE,
    "kedar79/Autograd_Word2Vec:autograd_word2vec.py": _MODULE + " (word2vec_model() is never "
                                                               "called)",
    "rgiordan/paragami:docs/source/example_notebooks/flattening_and_folding_psd_matrix.ipynb":
        "flattening and folding shown: no derivative taken",
    f"{SHIRISH}:autograd_flatten.py": "autograd's flatten shown: no derivative taken",
    "HIPS/autograd:examples/fluidsim/fluidsim.py": _SLOW,
    "HIPS/autograd:examples/fluidsim/wing.py": _SLOW,
    f"{AM207}:subspace_inference/subspace_inference_3/final_writeup.ipynb":
        _SLOW + " (PyTorch training runs before autograd is used)",
    f"{GPP}:code/toy_example_multivariate.py": _SLOW + " (5000 samples of a 100x100 network: "
    "the objective 3.8 s, its gradient 20 s at load 19; srcad's transform 1.3 s)",
    f"{GPP}:code/map_gpp_bnn_minmax.py": _SLOW,
    "danielflamshep/gpbnn:gan.py": _SLOW,
    "JiaweiZhuang/AM205_final:notebook/CHC/SimpleODE.ipynb": _SLOW,
    "pierreablin/autoptim:tutorials/preconditioning.py": "the program itself: autograd takes 37 s",
    "sigurdru/FYS-STK4155-Applied-Data-Analysis-and-Machine-Learning:project2/code/"
    "brest_cancer.py": "the program does not use autograd (a correlation matrix, 'not used')",
    "jovidie/FYS-STK4155-Project-2:examples/nn-tests.py": "the program itself: autograd takes 48 s",
    # (corpus29)
    "juliennonin/auto-diff-variational-inference:advi/main.py": _MODULE + " (the ADVI class)",
    "emmastorberg/FYS-STK4155_Project2:tests.py": _MODULE + " (pytest functions)",
    "fancompute/ceviche:examples/bloch_angle_planewave.ipynb":
        "the program takes no derivative (Bloch-periodic fields simulated and plotted)",
    "ingooboo/FYS-STK-Project-3:main/test_1_grid_resolution.ipynb":
        "the program itself: autograd too runs 60 s without finishing (a PINN's cost calls "
        "jacobian and hessian of the network per grid point)",
    "jovidie/FYS-STK4155-Project-2:examples/tests_even/gd-figs-franke.py":
        "the program itself: 80 descents of 2000 steps by its hand-written gradient run "
        "first; autograd takes 54 s",
    # (corpus30)
    "magnuhag/Projects:NeuralNetwork/NeuralNetwork.py": _MODULE + " (the network class)",
    "magnuhag/Projects:NeuralNetwork/NNC.py": _MODULE + " (the network class)",
    **{f"HIPS/hypergrad:talks/code/{name}.py": "Python 2: the derivatives are taken in "
       "map(...), lazy in Python 3, which the plotting stand-in never iterates"
       for name in ("tanh", "sinusoid", "sinusoid-taylor")},
}


def missing_mnist(target, missing):
    """MNIST's files of a ``data/`` folder the repository holds but its snapshot lacks (a
    snapshot leaves out files of 4 MiB and more: the training images): the four files in their
    format with random images (``example_programs.fake_mnist``; no download), in place of all
    four, so that they agree in size."""
    for folder in sorted({os.path.dirname(os.path.dirname(p)) for p in missing
                          if os.path.basename(os.path.dirname(p)) == "data"
                          and p.endswith(("-idx3-ubyte.gz", "-idx1-ubyte.gz"))}):
        fake_mnist(os.path.join(target, folder))


def extract(repo_dir, target, folder="", program=""):
    """The repository's committed files in ``target``; when the snapshot lacks some file (a
    fetched snapshot may list files it does not hold), those it holds of the folder above
    ``folder`` (a program may read ``../data`` or import ``../package``) and of the root's
    folders ``program`` names, or all it holds of a repository that is a package; MNIST's
    files it lacks are made up (``missing_mnist``)."""
    done = subprocess.run(["git", "-C", repo_dir, "archive", "HEAD"], capture_output=True)
    if done.returncode == 0:
        subprocess.run(["tar", "-x", "-C", target], input=done.stdout, check=True)
        return
    top = subprocess.run(["git", "-C", repo_dir, "ls-tree", "--name-only", "HEAD"],
                         check=True, capture_output=True, text=True).stdout.split()
    above = [os.path.dirname(folder.rstrip("/")) or "."]
    if "setup.py" in top or "pyproject.toml" in top:
        above = ["."]  # a package: its programs import it from the root (see package_path)
    elif program:  # the root's folders the program names: a package it imports after
        # `sys.path.append("../..")`, data it reads as "../../datasets/..."
        text = subprocess.run(["git", "-C", repo_dir, "show", f"HEAD:{program}"],
                              capture_output=True, text=True).stdout
        above += [d for d in top if len(d) > 3 and re.search(rf"\b{re.escape(d)}\b", text)]
    listing = subprocess.run(["git", "-C", repo_dir, "ls-tree", "-r", "-z", "HEAD", "--",
                              *above], check=True, capture_output=True).stdout
    blobs = []
    for entry in listing.split(b"\0"):
        if entry:
            meta, path = entry.split(b"\t", 1)
            mode, kind, sha = meta.split()
            if kind == b"blob" and mode != b"120000":
                blobs.append((sha, path.decode()))
    batch = subprocess.run(["git", "-C", repo_dir, "cat-file", "--batch"], check=True,
                           input=b"".join(sha + b"\n" for sha, _ in blobs),
                           capture_output=True).stdout
    at, missing = 0, []
    for _sha, name in blobs:
        end = batch.index(b"\n", at)
        header = batch[at:end].split()
        at = end + 1
        if header[-1] == b"missing":
            missing.append(name)
            continue
        size = int(header[2])
        data, at = batch[at:at + size], at + size + 1
        os.makedirs(os.path.join(target, os.path.dirname(name)), exist_ok=True)
        with open(os.path.join(target, name), "wb") as f:
            f.write(data)
    missing_mnist(target, missing)


#: cell magics whose body is Python that IPython runs (the others' bodies are not Python)
PYTHON_CELL_MAGICS = ("%%time", "%%timeit", "%%capture")


def cell_lines(source):
    """One code cell's lines as IPython runs them: ``%magic``, ``!shell`` and ``name?`` help
    lines, and ``pip install ...`` / ``conda install ...`` (IPython's automagic, corpus28)
    become ``pass``; a ``%%`` cell magic keeps its body only when that is Python; a
    last line that is an expression also sets ``_`` to its value unless it is None (IPython's
    last output, which later cells may read)."""
    lines = source.splitlines()
    if lines and lines[0].startswith("%%"):
        if not lines[0].startswith(PYTHON_CELL_MAGICS):
            return []
        lines = lines[1:]
    out = []
    for line in lines:
        stripped = line.strip()
        if stripped.startswith(("%", "!")) or re.fullmatch(
                r"\?*[\w.]+\?+|\?+[\w.]+|(pip|conda) (install|uninstall) .*", stripped):
            line = line[:len(line) - len(line.lstrip())] + "pass"
        elif re.match(r"\s*[\w, ]+=\s*[!%]", line):  # files = !ls, t = %timeit f()
            line = line[:len(line) - len(line.lstrip())] + "pass"
        out.append(line)
    try:
        body = ast.parse("\n".join(out)).body
    except SyntaxError:
        return out
    if body and isinstance(body[-1], ast.Expr) and not out[body[-1].end_lineno - 1].rstrip(
            ).endswith(";"):
        last = body[-1]
        first, final = last.lineno - 1, last.end_lineno - 1
        indent = out[first][:len(out[first]) - len(out[first].lstrip())]
        head = out[first].encode()  # col_offset counts bytes; after `import sys; ` too
        out[first] = (head[:last.col_offset] + b"_srcad_out = "
                      + head[last.col_offset:]).decode()
        out.insert(final + 1, indent + "_ = _srcad_out if _srcad_out is not None else _")
    return out


def notebook_program(path):
    """A notebook's code cells as one program, next to it (``name.ipynb`` -> ``name.py``):
    the cells in order, as IPython runs them (``cell_lines``). Returns its name."""
    with open(path, encoding="utf-8") as f:
        cells = json.load(f).get("cells", [])
    lines, future = ["_ = None"], []
    for cell in cells:
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else source
        for line in cell_lines(source):  # IPython takes __future__ imports in any cell
            (future if line.startswith("from __future__ import") else lines).append(line)
        lines.append("")
    lines = future + lines
    program = os.path.splitext(path)[0] + ".py"
    with open(program, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return os.path.basename(program)


def ipython_script(path):
    """A ``.py`` file written for IPython (an editor's interactive window, ``# %%`` cells):
    when it is not Python for lack of that (a ``%matplotlib inline`` line), its cells as
    IPython runs them (``cell_lines``), in a file beside it; else the file itself. Returns
    the name to run (corpus29: a TrueSkill SVI assignment, an ADVI experiment)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        ast.parse(text)
        return os.path.basename(path)
    except SyntaxError:
        if not re.search(r"^[ \t]*[%!]", text, re.M):
            return os.path.basename(path)  # not IPython's: Python's error, as it is
    cells, cell = [], []
    for line in text.splitlines():
        if re.match(r"#\s*%%", line):
            cells.append(cell)
            cell = []
        else:
            cell.append(line)
    cells.append(cell)
    lines, future = ["_ = None"], []
    for c in cells:  # as notebook_program: IPython's `_`, __future__ imports first
        for line in cell_lines("\n".join(c)) + [""]:
            (future if line.startswith("from __future__ import") else lines).append(line)
    lines = future + lines
    program = os.path.join(os.path.dirname(path), "_ipython_" + os.path.basename(path))
    with open(program, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return os.path.basename(program)


def quarto_program(path):
    """A Quarto document's Python cells (```` ```{python} ```` blocks) as one program, next to it
    (``name.qmd`` -> ``name_qmd.py``), in order, each cell as IPython runs it (``cell_lines``:
    Quarto runs them in a Jupyter kernel). Returns its name."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    lines, future = ["_ = None"], []
    for cell in re.findall(r"^```\{python[^}]*\}[^\n]*\n(.*?)^```", text, re.M | re.S):
        for line in cell_lines(cell):
            (future if line.startswith("from __future__ import") else lines).append(line)
        lines.append("")
    program = os.path.splitext(path)[0] + "_qmd.py"
    with open(program, "w", encoding="utf-8") as f:
        f.write("\n".join(future + lines) + "\n")
    return os.path.basename(program)


def scm_version_file(root):
    """For a package whose version setuptools_scm writes into a module at install time
    (``[tool.setuptools_scm] write_to = "src/pkg/_version.py"``), that module, as ``pip
    install -e .`` would write it, when the repository lacks it."""
    try:
        with open(os.path.join(root, "pyproject.toml"), encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return
    found = re.search(r"\[tool\.setuptools_scm\][^\[]*?\b(?:write_to|version_file)\s*=\s*"
                      r"[\"']([^\"']+)[\"']", text)
    target = os.path.join(root, found.group(1)) if found else None
    if target and not os.path.exists(target) and os.path.isdir(os.path.dirname(target)):
        with open(target, "w", encoding="utf-8") as f:
            f.write('__version__ = version = "0.0.0"\n')


def dist_info(root):
    """For a package whose ``pyproject.toml`` names it and its version (``[project]``), the
    metadata ``pip install -e .`` would write (a ``NAME-VERSION.dist-info`` folder beside the
    package, on the path ``package_path`` gives), so that ``importlib.metadata.version`` of
    it answers as for its users."""
    try:
        with open(os.path.join(root, "pyproject.toml"), encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return
    project = re.search(r"^\[project\]\s*$(.*?)(?=^\[|\Z)", text, re.M | re.S)
    name = project and re.search(r"^name\s*=\s*[\"']([^\"']+)[\"']", project.group(1), re.M)
    version = project and re.search(r"^version\s*=\s*[\"']([^\"']+)[\"']", project.group(1),
                                    re.M)
    if not (name and version):
        return
    base = os.path.join(root, "src") if os.path.isdir(os.path.join(root, "src")) else root
    folder = os.path.join(base, f"{name.group(1).replace('-', '_')}-{version.group(1)}.dist-info")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "METADATA"), "w", encoding="utf-8") as f:
        f.write(f"Metadata-Version: 2.1\nName: {name.group(1)}\nVersion: {version.group(1)}\n")


def package_path(root, pythonpath):
    """The extra packages and, when the repository is a package (a ``setup.py`` or
    ``pyproject.toml`` at its root), the repository's root: its programs are run as its users
    run them, with the package installed (``pip install -e .``)."""
    paths = [pythonpath] if pythonpath else []
    if any(os.path.exists(os.path.join(root, f)) for f in ("setup.py", "pyproject.toml")):
        paths.insert(0, root)
        if os.path.isdir(os.path.join(root, "src")):  # a "src layout": the package is there
            paths.insert(0, os.path.join(root, "src"))
    return paths


def report(counts, name, result):
    counts[result["outcome"]] = counts.get(result["outcome"], 0) + 1
    where = f" at {result['where']}" if result.get("where") else ""
    message = f": {result['message']}" if result.get("message") else ""
    if result["outcome"] in ("TIMEOUT", "NO-GRADIENT") and name in KNOWN:
        message += f" [{KNOWN[name]}]"
    print(f"{result['outcome']:<16} {name:<40} checks={result.get('checks', 0):<3} "
          f"{result['seconds']:>6.1f}s{where}{message}", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=30)
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--pythonpath", help="extra packages (e.g. a --target install of scipy)")
    parser.add_argument("--engine", choices=("srcad", "autograd"), default="srcad",
                        help="autograd: run the programs with autograd itself (nothing checked; "
                        "a CRASH there too is the program's own)")
    args = parser.parse_args(argv)
    if args.engine == "autograd":
        os.environ["SRCAD_SHIM_ENGINE"] = "autograd"
    counts = {}
    for repo, path in CORPUS:
        name = f"{repo}:{path}"
        if args.only and not any(o in name for o in args.only):
            continue
        repo_dir = os.path.join(MIRRORS, repo.replace("/", "+"), "repo")
        if not os.path.isdir(repo_dir):
            result = {"outcome": "ENVIRONMENT", "message": f"fetch github:{repo} first",
                      "seconds": 0.0}
        else:
            with tempfile.TemporaryDirectory(prefix="srcad-corpus-") as tmp:
                try:
                    extract(repo_dir, tmp, os.path.dirname(path), path)
                except subprocess.CalledProcessError:
                    result = {"outcome": "ENVIRONMENT", "seconds": 0.0,
                              "message": "the fetched snapshot lacks files of its folder"}
                    report(counts, name, result)
                    continue
                scm_version_file(tmp)
                dist_info(tmp)
                folder = os.path.join(tmp, os.path.dirname(path))
                program = os.path.basename(path)
                if not os.path.exists(os.path.join(folder, program)):
                    result = {"outcome": "ENVIRONMENT", "seconds": 0.0,
                              "message": "the fetched snapshot lacks the program's file"}
                    report(counts, name, result)
                    continue
                if program.endswith(".ipynb"):
                    program = notebook_program(os.path.join(folder, program))
                elif program.endswith(".qmd"):
                    program = quarto_program(os.path.join(folder, program))
                elif program.endswith(".py"):
                    program = ipython_script(os.path.join(folder, program))
                result = run_one(folder, program, args.seconds,
                                 os.pathsep.join(package_path(tmp, args.pythonpath)))
        report(counts, name, result)
    print("TOTAL " + " ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    return 1 if counts.get("WRONG") else 0


if __name__ == "__main__":
    sys.exit(main())
